// Worker thread: the SQLite store's background writes (audit, usage, quota) on a connection of its own.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SqliteAudit } from './audit.js';
import { SqliteKeys } from './keys.js';
import { applyPragmas } from './schema.js';
import type { WriterReply, WriterRequest, WriterWorkerInput } from './writer.js';

const port = parentPort!;
const { path } = workerData as WriterWorkerInput;
const db = new Database(path, { fileMustExist: true });
applyPragmas(db, false);
// It appends at the ends of a few indexes and reads back little: 2 MiB of cache, not the readers' 16.
db.pragma('cache_size = -2048');
const keys = new SqliteKeys(db);
const audit = new SqliteAudit(db);

function perform(request: WriterRequest): unknown {
  switch (request.op) {
    case 'audit':
      return audit.add(request.entries);
    case 'usage':
      return keys.addUsage(request.rows);
    case 'quota':
      return keys.addQuotaUse(request.period, request.counts);
    case 'prune':
      return audit.prune(request.before);
  }
}

port.on('message', (request: WriterRequest | 'close') => {
  if (request === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    reply = { id: request.id, ok: true, result: perform(request) as number | undefined };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
