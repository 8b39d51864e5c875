// exportTo: NDJSON out, in id order, that imports back unchanged, without outrunning a slow reader.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportTo } from '../../src/ingest/export.js';
import { importFile } from '../../src/ingest/import.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { personLine } from './fixtures.js';

/** A sink that takes its time over every chunk and remembers how much was ever waiting in it. */
class SlowSink extends Writable {
  text = '';
  peakBuffered = 0;
  constructor() {
    super({ highWaterMark: 16 * 1024, decodeStrings: false });
  }
  override _write(chunk: string, _encoding: BufferEncoding, done: (error?: Error) => void) {
    this.peakBuffered = Math.max(this.peakBuffered, this.writableLength);
    this.text += chunk;
    setTimeout(done, 1);
  }
}

async function exportText(store: SqliteStore, entity: 'people' | 'companies'): Promise<string> {
  const sink = new SlowSink();
  await exportTo(store, entity, sink);
  return sink.text;
}

describe('exportTo', () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-export-'));
    store = openSqliteStore(join(dir, 'enrich.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a file that imports back byte for byte', async () => {
    const lines = [
      '{"id":"f1","name":"Zoë & Co 😀","description":null}',
      '{"name":"spaces kept" , "id":"f2",   "keywords":[]}',
      '{"id":"f3"}',
    ];
    const original = join(dir, 'companies.ndjson');
    writeFileSync(original, `${lines.join('\n')}\n`);
    await importFile(store, 'companies', original, { worker: false });
    const exported = join(dir, 'exported.ndjson');
    writeFileSync(exported, await exportText(store, 'companies'));
    expect(readFileSync(exported, 'utf8')).toBe(readFileSync(original, 'utf8'));

    const again = openSqliteStore(join(dir, 'again.db'));
    await importFile(again, 'companies', exported, { worker: false });
    expect(await exportText(again, 'companies')).toBe(readFileSync(original, 'utf8'));
    await again.close();
  });

  it('writes records in id order whatever order they came in', async () => {
    const file = join(dir, 'people.ndjson');
    writeFileSync(file, `${[3, 1, 2].map(personLine).join('\n')}\n`);
    await importFile(store, 'people', file, { worker: false });
    expect(await exportText(store, 'people')).toBe(`${[1, 2, 3].map(personLine).join('\n')}\n`);
  });

  it('waits for a slow reader instead of buffering the whole export', async () => {
    const file = join(dir, 'people.ndjson');
    const lines = Array.from({ length: 2000 }, (_, n) => personLine(n));
    writeFileSync(file, `${lines.join('\n')}\n`);
    await importFile(store, 'people', file, { worker: false });
    const sink = new SlowSink();
    expect(await exportTo(store, 'people', sink)).toBe(2000);
    expect(sink.text).toBe(`${lines.join('\n')}\n`);
    expect(sink.peakBuffered).toBeLessThan(256 * 1024);
  });

  it('writes nothing for an empty store', async () => {
    expect(await exportText(store, 'people')).toBe('');
  });
});
