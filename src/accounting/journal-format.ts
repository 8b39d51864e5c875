// One journal line per keyed lookup, and what a run of lines adds to the audit log, usage and quotas.
import type { AuditEntry, Operation, UsageRow } from '../store/store.js';
import type { LookupRecord } from './accounting.js';
import { outcomeOf } from './outcome.js';
import { mergeUsage } from './usage-report.js';

/**
 * `at \t keyId \t operation \t params \t status \t matched \n`, lists comma-joined. None of the fields can
 * hold a tab, comma or newline: key ids are base62, parameter names fixed, record ids `[A-Za-z0-9_-]`.
 * @example journalLine({ at: 0, keyId: 'key_1', operation: 'people', params: ['id'], matched: ['fp1'], status: 200 })
 * // '0\tkey_1\tpeople\tid\t200\tfp1\n'
 */
export function journalLine(r: LookupRecord): string {
  return `${r.at}\t${r.keyId}\t${r.operation}\t${r.params.join(',')}\t${r.status}\t${r.matched.join(',')}\n`;
}

const list = (text: string) => (text === '' ? [] : text.split(','));

/** A line back as the lookup it records; undefined for a line that is not one (never written whole). */
export function parseJournalLine(line: string): LookupRecord | undefined {
  const fields = line.split('\t');
  if (fields.length !== 6) return undefined;
  const [at, keyId, operation, params, status, matched] = fields as [string, ...string[]];
  const record = {
    at: Number(at),
    keyId: keyId!,
    operation: operation as Operation,
    params: list(params!),
    matched: list(matched!),
    status: Number(status),
  };
  return Number.isFinite(record.at) && Number.isInteger(record.status) ? record : undefined;
}

/** What a run of journal lines adds to the store, written in one transaction with the journal offset. */
export interface Folded {
  audit: AuditEntry[];
  usage: UsageRow[];
  /** Matched lookups per period ('YYYY-MM') and key id. */
  quota: Map<string, Map<string, number>>;
}

/** ISO-8601 text of a time in ms; the text up to the second is reused while the second lasts. */
class IsoClock {
  private second = Number.NaN;
  private prefix = '';

  iso(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.second = second;
      this.prefix = new Date(second * 1000).toISOString().slice(0, 20);
    }
    const millis = ms - second * 1000;
    return `${this.prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  }
}

/**
 * The audit entries, usage rows and quota counts of a run of journal lines (complete lines only).
 * Usage and quota are derived from the entries, so the three can never disagree.
 */
export function foldLines(text: string): Folded {
  const audit: AuditEntry[] = [];
  const usage = new Map<string, UsageRow>();
  const quota = new Map<string, Map<string, number>>();
  const clock = new IsoClock();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const r = end > start ? parseJournalLine(text.slice(start, end)) : undefined;
    start = end + 1;
    if (r === undefined) continue;
    const at = clock.iso(r.at);
    audit.push({
      at,
      key_id: r.keyId,
      operation: r.operation,
      params: r.params,
      matched: r.matched,
      status: r.status,
    });
    const day = at.slice(0, 10);
    const id = `${day}|${r.keyId}|${r.operation}`;
    let row = usage.get(id);
    if (!row) {
      row = {
        key_id: r.keyId,
        day,
        operation: r.operation,
        requests: 0,
        matched: 0,
        not_found: 0,
        ambiguous: 0,
        rejected: 0,
      };
      usage.set(id, row);
    }
    row.requests++;
    const outcome = outcomeOf(r.status);
    if (outcome === 'failed') continue;
    row[outcome]++;
    if (outcome !== 'matched') continue;
    const period = at.slice(0, 7);
    let byKey = quota.get(period);
    if (!byKey) {
      byKey = new Map();
      quota.set(period, byKey);
    }
    byKey.set(r.keyId, (byKey.get(r.keyId) ?? 0) + 1);
  }
  return { audit, usage: mergeUsage([...usage.values()]), quota };
}
