// Reads a refresh's files' ids, on a thread of its own (file-ids-worker.ts) for a large file, while the
// writer's thread reads the store (its ids, then its etags); then compares the stored ids with them.
import { startWorker } from '../worker.js';
import { FileIds, type FileIdsMessage, type FileIdsReport, type FileIdsResult } from './file-ids.js';

/** A comparison under way: the files are being read. */
export interface FileIdsReading {
  /** Compares the store's ids (every one, in pages, in any order) with the files', once they are read. */
  compare(pages: AsyncIterable<string[]>): Promise<FileIdsResult>;
}

/**
 * Starts reading the files' ids: on a thread of its own with `thread` (the caller's thread reads the store
 * meanwhile; for files worthThreads says are large enough), else on the caller's, before the stored ids are
 * compared.
 * @example const { absent, stored, repeated } = await readFileIds(['people.ndjson'], true).compare(store.exportIds('people'));
 */
export function readFileIds(files: readonly string[], thread: boolean): FileIdsReading {
  if (!thread) {
    const ids = new FileIds();
    const reading = ids.read(files);
    // A failure is the comparison's, when it is asked for: not an unhandled rejection meanwhile.
    reading.catch(() => {});
    return {
      compare: async (pages) => {
        await reading;
        for await (const page of pages) ids.compare(page);
        return ids.result();
      },
    };
  }
  const worker = startWorker(import.meta.url, './file-ids-worker', { files: [...files] });
  const reported = new Promise<FileIdsResult>((resolve, reject) => {
    worker.once('message', (report: FileIdsReport) => {
      if ('result' in report) resolve(report.result);
      else reject(Object.assign(new Error(report.failed.message), { code: report.failed.code }));
    });
    worker.once('error', reject);
    worker.once('exit', () => reject(new Error('the thread reading the files’ ids ended early')));
  });
  reported.catch(() => {});
  return {
    compare: async (pages) => {
      try {
        for await (const page of pages)
          worker.postMessage({ page: JSON.stringify(page) } satisfies FileIdsMessage);
        worker.postMessage('end' satisfies FileIdsMessage);
        return await reported;
      } finally {
        void worker.terminate();
      }
    },
  };
}
