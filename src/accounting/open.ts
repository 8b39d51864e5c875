// The accounting a server runs with: the journal, where it lives, and where it is folded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountingStore } from '../store/accounting.js';
import type { StoreLocation } from '../store/open.js';
import { JournalWriter } from './journal.js';
import { foldHere, foldInWorker, JournalAccounting } from './journal-accounting.js';
import { JournalHealth, type JournalLog, probeDirectory } from './journal-health.js';

/** How often the journal is folded into the store. */
export const FOLD_EVERY_MS = 200;

export interface AccountingOptions {
  /** The journal's directory; a temporary one, removed on close, when omitted (tests). */
  dir?: string;
  /** The store a folding thread opens; without it, folding runs on this thread, over `store`. */
  location?: StoreLocation;
  /** Audit entries older than this many days are pruned at start and daily. */
  retentionDays?: number;
  onError: (error: unknown) => void;
  /** Where a journal that cannot be written is reported, once when it starts and once when it ends. */
  log?: JournalLog;
}

const SILENT: JournalLog = { error: () => {}, info: () => {} };

/**
 * Opens the journal and its folding.
 * @example const accounting = openAccounting(store, { dir: 'data/enrich.db-accounting', onError })
 */
export function openAccounting(store: AccountingStore, options: AccountingOptions): JournalAccounting {
  const temporary = options.dir === undefined ? mkdtempSync(join(tmpdir(), 'enrich-journal-')) : undefined;
  const dir = options.dir ?? temporary!;
  const folds = options.location
    ? foldInWorker(options.location, dir, FOLD_EVERY_MS, options.onError, options.retentionDays)
    : foldHere(store, dir, FOLD_EVERY_MS, options.retentionDays);
  const removeTemporary = temporary
    ? {
        foldNow: () => folds.foldNow(),
        foldedUpTo: () => folds.foldedUpTo(),
        close: async () => {
          const folded = await folds.close();
          rmSync(temporary, { recursive: true, force: true });
          return folded;
        },
      }
    : folds;
  const health = new JournalHealth({ log: options.log ?? SILENT, probe: probeDirectory(dir) });
  return new JournalAccounting(new JournalWriter(dir), removeTemporary, options.onError, health);
}
