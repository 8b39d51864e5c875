// Starting a worker thread from a module beside the caller, whether running built (.js) or from sources (.ts).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts the worker module `name` (without extension) that sits beside `callerUrl`. Node 20 does not
 * carry ESM loader hooks (tsx) into worker threads, so from sources (tests, tsx) the worker registers
 * tsx's CommonJS hook and requires the TypeScript file itself; such a module must not use top-level await.
 * @example startWorker(import.meta.url, './prepare-worker', { file })
 */
export function startWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${name}.js`, callerUrl), { workerData });
  const tsx = createRequire(callerUrl).resolve('tsx/cjs/api');
  const entry = fileURLToPath(new URL(`${name}.ts`, callerUrl));
  const code = `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`;
  return new Worker(code, { eval: true, workerData });
}
