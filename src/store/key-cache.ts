// API keys by token hash held in a process's memory, valid for one version of the keys (a store's own
// counter that every key write changes), so that a lookup authenticates without a query.
import type { StoredKey } from './keys.js';

/** Keys held by hash at most; past it the cache starts afresh, so made-up tokens cannot grow it. */
const LIMIT = 10_000;

export class KeysByHash {
  private readonly keys = new Map<string, StoredKey | null>();
  private version = -1;

  /**
   * What is held for `hash` while the keys are at `version`: the key, null when known to be none, or
   * undefined when not held (a change of version, or the limit reached, empties the cache first).
   */
  get(hash: string, version: number): StoredKey | null | undefined {
    if (version !== this.version || this.keys.size >= LIMIT) {
      this.keys.clear();
      this.version = version;
    }
    return this.keys.get(hash);
  }

  /** Holds the answer for `hash` (null: no key has it) at the version of the last `get`. */
  set(hash: string, key: StoredKey | null): void {
    this.keys.set(hash, key);
  }

  clear(): void {
    this.keys.clear();
  }
}
