// Test helper: the ProblemError a call throws, so tests can assert its code and detail.
import { ProblemError } from '../../src/errors.js';

export function thrownProblem(run: () => unknown): ProblemError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error('expected a ProblemError, but nothing was thrown');
}
