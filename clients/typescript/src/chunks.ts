// A long list sent as chunks of an endpoint's limit, a few at a time, its answers put back in order.

/**
 * Calls `send` for each chunk of at most `size` items, at most `concurrency` at once, and resolves with the
 * answers in the chunks' order. The first failure rejects and aborts the calls still running (through the
 * signal each is given); no further chunk is sent.
 * @example await inChunks(ids, 1000, 2, (chunk, signal) => lookup(chunk, signal))
 */
export async function inChunks<T, R>(
  items: readonly T[],
  size: number,
  concurrency: number,
  send: (chunk: T[], signal: AbortSignal) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  const answers: R[] = new Array(chunks.length);
  const stop = new AbortController();
  const linked = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  let next = 0;
  const worker = async () => {
    while (next < chunks.length && !linked.aborted) {
      const index = next++;
      answers[index] = await send(chunks[index]!, linked);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, chunks.length)) }, worker));
  } catch (error) {
    stop.abort(error);
    throw error;
  }
  linked.throwIfAborted();
  return answers;
}
