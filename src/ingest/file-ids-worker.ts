// Worker thread: reads a refresh's files' ids while the main thread reads the store, then compares the
// stored ids it is sent with them (see file-ids.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { FileIds, type FileIdsMessage, type FileIdsReport } from './file-ids.js';

const port = parentPort!;
const { files } = workerData as { files: string[] };
const ids = new FileIds();
/** Pages sent while the files are still being read. */
const waiting: FileIdsMessage[] = [];
let read = false;

function take(message: FileIdsMessage): void {
  if (message !== 'end') ids.compare(JSON.parse(message.page) as string[]);
  else port.postMessage({ result: ids.result() } satisfies FileIdsReport);
}

port.on('message', (message: FileIdsMessage) => {
  if (read) take(message);
  else waiting.push(message);
});

// No top-level await: from sources this file is loaded through tsx's CommonJS hook (see ../worker.ts).
async function run() {
  try {
    await ids.read(files);
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    port.postMessage({ failed: { message, code } } satisfies FileIdsReport);
    port.close();
    return;
  }
  read = true;
  for (const message of waiting.splice(0)) take(message);
}

void run();
