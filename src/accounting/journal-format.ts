// One journal line per keyed lookup, and what a run of lines adds to the audit log, usage and quotas.
import { type AccountingBatch, type AuditRow, allowanceId, type UsageRow } from '../store/accounting.js';
import { type Operation, QUOTA_OPERATIONS } from '../vocabulary/operations.js';
import type { LookupRecord } from './accounting.js';
import { usageOutcome } from './usage-outcome.js';
import { mergeUsage } from './usage-report.js';

/**
 * `at \t keyId \t operation \t params \t status \t matched \n`, lists comma-joined. None of the fields can
 * hold a tab, comma or newline: key ids are base62, parameter names fixed, record ids `[A-Za-z0-9_-]`.
 * @example journalLine({ at: 0, keyId: 'key_1', operation: 'people', params: ['id'], matched: ['fp1'], status: 200 })
 * // '0\tkey_1\tpeople\tid\t200\tfp1\n'
 */
export function journalLine(r: LookupRecord): string {
  if (r.at !== head.at || r.keyId !== head.keyId || r.operation !== head.operation) {
    head = {
      at: r.at,
      keyId: r.keyId,
      operation: r.operation,
      text: `${r.at}\t${r.keyId}\t${r.operation}\t`,
    };
  }
  return `${head.text}${r.params.join(',')}${statusField(r.status)}${r.matched.join(',')}\n`;
}

/**
 * The line's first three fields as last written: a bulk's items share them, so each item's line is joined
 * from four pieces rather than eleven (fewer strings for the collector, at 150,000 lines a second).
 */
let head = { at: Number.NaN, keyId: '', operation: '', text: '' };

/** `\tstatus\t`, made once for each status. */
const STATUS_FIELDS = new Map<number, string>();
function statusField(status: number): string {
  let field = STATUS_FIELDS.get(status);
  if (field === undefined) {
    field = `\t${status}\t`;
    STATUS_FIELDS.set(status, field);
  }
  return field;
}

/** What a run of journal lines adds to the store. */
export type Folded = AccountingBatch;

const DAY_MS = 86_400_000;

/** The UTC day ('YYYY-MM-DD') and month ('YYYY-MM') of a time in ms, the texts reused while the day lasts. */
class DayClock {
  private start = Number.NaN;
  day = '';
  month = '';

  at(ms: number): void {
    if (ms >= this.start && ms < this.start + DAY_MS) return;
    this.start = Math.floor(ms / DAY_MS) * DAY_MS;
    this.day = new Date(this.start).toISOString().slice(0, 10);
    this.month = this.day.slice(0, 7);
  }
}

/** How many ids a comma-joined list holds. */
function idCount(list: string): number {
  let n = 1;
  for (let i = list.indexOf(','); i >= 0; i = list.indexOf(',', i + 1)) n++;
  return n;
}

/**
 * The audit entries, usage rows and quota counts of a run of journal lines (complete lines only).
 * Usage and quota are derived from the entries, so the three can never disagree; quotas count matched
 * lookups under their key's id, and the results searches return under its allowance's (`search:<id>`).
 */
export function foldLines(text: string): Folded {
  const audit: AuditRow[] = [];
  const usage = new Map<string, UsageRow>();
  const quota = new Map<string, Map<string, number>>();
  const clock = new DayClock();
  let last: UsageRow | undefined;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const row = end > start ? auditRow(text, start, end, clock) : undefined;
    start = end + 1;
    if (row === undefined) continue;
    audit.push(row);
    const day = clock.day;
    // Consecutive lines are mostly one key's: the row of the line before is checked first.
    let counts =
      last !== undefined && last.key_id === row.key_id && last.operation === row.operation && last.day === day
        ? last
        : usage.get(`${day}|${row.key_id}|${row.operation}`);
    if (!counts) {
      counts = {
        key_id: row.key_id,
        day,
        operation: row.operation,
        requests: 0,
        matched: 0,
        not_found: 0,
        ambiguous: 0,
        rejected: 0,
      };
      usage.set(`${day}|${row.key_id}|${row.operation}`, counts);
    }
    last = counts;
    counts.requests++;
    const outcome = usageOutcome(row.operation, row.status, row.matched !== '');
    if (outcome === 'failed') continue;
    counts[outcome]++;
    if (outcome !== 'matched') continue;
    // A matched lookup counts one against its key's quota; a search, its results against its allowance.
    const lookup = QUOTA_OPERATIONS.includes(row.operation);
    const counted = lookup ? row.key_id : allowanceId(row.key_id);
    const period = clock.month;
    let byKey = quota.get(period);
    if (!byKey) {
      byKey = new Map();
      quota.set(period, byKey);
    }
    byKey.set(counted, (byKey.get(counted) ?? 0) + (lookup ? 1 : idCount(row.matched)));
  }
  return { audit, usage: mergeUsage([...usage.values()]), quota };
}

/**
 * The audit row of the line text[start, end), its lists left joined as the stores keep them; undefined
 * for a line that is not one (never written whole).
 */
function auditRow(text: string, start: number, end: number, clock: DayClock): AuditRow | undefined {
  const t1 = text.indexOf('\t', start);
  const t2 = text.indexOf('\t', t1 + 1);
  const t3 = text.indexOf('\t', t2 + 1);
  const t4 = text.indexOf('\t', t3 + 1);
  const t5 = text.indexOf('\t', t4 + 1);
  const extra = text.indexOf('\t', t5 + 1);
  if (t1 < 0 || t5 < 0 || t5 > end || (extra >= 0 && extra < end)) return undefined;
  const at = Number(text.slice(start, t1));
  const status = Number(text.slice(t4 + 1, t5));
  if (!Number.isFinite(at) || !Number.isInteger(status)) return undefined;
  clock.at(at);
  return {
    atMs: at,
    key_id: text.slice(t1 + 1, t2),
    operation: text.slice(t2 + 1, t3) as Operation,
    params: text.slice(t3 + 1, t4),
    matched: text.slice(t5 + 1, end),
    status,
  };
}
