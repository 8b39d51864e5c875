// An import that failed part-way through its file: the batches before the failure stay committed.

/** Thrown by importFile when reading or storing fails after it began; `cause` is the failure itself. */
export class ImportInterruptedError extends Error {
  override name = 'ImportInterruptedError';

  constructor(
    /** Records of the file committed before the failure (each batch is wholly in or wholly out). */
    readonly committed: number,
    options: { cause: unknown },
  ) {
    super(`import interrupted after ${committed} records: ${(options.cause as Error)?.message}`, options);
  }
}
