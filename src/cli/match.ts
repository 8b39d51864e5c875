// enrich match: a list of people or companies in (CSV or NDJSON), the same list out with each row's match.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ProblemError } from '../errors.js';
import type { Resolver } from '../ingest/match/list.js';
import type { ColumnUse } from '../ingest/match/mapping.js';
import type { MatchCounts } from '../ingest/match/match.js';
import type { Entity } from '../vocabulary/entities.js';
import {
  collect,
  parseEntity,
  requireLocalStore,
  serverOf,
  UsageError,
  withOpenStore,
  withStore,
} from './options.js';
import { rowProgress } from './progress.js';

interface MatchOptions {
  db?: string;
  out?: string;
  fields?: string;
  map?: string[];
  url?: string;
  token?: string;
  /** False with --no-formula-guard: CSV cells written as they are, formulas included. */
  formulaGuard: boolean;
}

const count = (n: number) => n.toLocaleString('en');

/** `Matching people by "Work Email" → work_email, "E-mail" → work_email, personal_email; not used: "Name"`. */
function describeMapping(entity: Entity, uses: readonly ColumnUse[], unused: readonly string[]): string {
  const used = uses.map((use) => `${JSON.stringify(use.header)} → ${use.params.join(', ')}`).join('; ');
  const rest = unused.length > 0 ? `; not used: ${unused.map((h) => JSON.stringify(h)).join(', ')}` : '';
  return `Matching ${entity} by ${used}${rest}`;
}

/** `1,000 rows: 823 matched (82.3%), 150 not found, 2 ambiguous, 25 invalid in 1.2 s (833 rows/s)`. */
function describeCounts(counts: MatchCounts, seconds: number): string {
  const { rows, byStatus, malformed } = counts;
  const share = rows > 0 ? ((100 * byStatus.matched) / rows).toFixed(1) : '0.0';
  const invalid = `${count(byStatus.invalid)} invalid${malformed > 0 ? ` (${count(malformed)} malformed)` : ''}`;
  const quota =
    byStatus.quota_exceeded > 0 ? `, ${count(byStatus.quota_exceeded)} not looked up (quota exceeded)` : '';
  const rate = Math.round(rows / Math.max(seconds, 0.001));
  return (
    `${count(rows)} ${rows === 1 ? 'row' : 'rows'}: ${count(byStatus.matched)} matched (${share}%), ${count(byStatus.not_found)} not found, ` +
    `${count(byStatus.ambiguous)} ambiguous, ${invalid}${quota} in ${seconds.toFixed(1)} s (${count(rate)} rows/s)`
  );
}

export function registerMatch(program: Command) {
  withStore(program.command('match'))
    .description('match a list (CSV or NDJSON, gzip detected) and write it back with each row’s match')
    .argument('<entity>', 'people or companies', parseEntity)
    .argument('<input>', 'CSV (header row; comma, semicolon or tab) or NDJSON file, or - for stdin')
    .option('--out <file>', 'output file (default: stdout)')
    .option('--fields <paths>', 'record fields to add, e.g. name,current_company.name')
    .option(
      '--map <column=param>',
      'match by this column as this parameter (repeatable; COLUMN= ignores it)',
      collect,
    )
    .option('--url <url>', 'match through this server’s bulk API (default: $ENRICH_URL)')
    .option('--token <token>', 'bearer token for --url (default: $ENRICH_TOKEN)')
    .option(
      '--no-formula-guard',
      "write CSV cells that start with =, @, + or - as they are (by default they get a leading ' so that a spreadsheet does not run them as formulas; numbers and phone numbers are left alone)",
    )
    .action(async (entity: Entity, input: string, opts: MatchOptions) => {
      const exitCode = await runMatch(entity, input, opts);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}

/** Validates --fields against the record's schema: the paths to add, and the selection for NDJSON records. */
async function parseFields(entity: Entity, fields: string | undefined) {
  if (fields === undefined) return undefined;
  const { fieldSelection } = await import('../ingest/match/fields.js');
  try {
    return await fieldSelection(entity, fields);
  } catch (error) {
    if (error instanceof ProblemError) throw new UsageError(`--fields: ${error.detail}`);
    throw error;
  }
}

async function runMatch(entity: Entity, input: string, opts: MatchOptions): Promise<number> {
  // A row that matches nothing is a ProblemError thrown by the lookup, never shown with its stack: capturing
  // one would be a sixth of such a row's cost. ENRICH_DEBUG keeps stacks, for a bug's sake.
  if (!process.env.ENRICH_DEBUG) Error.stackTraceLimit = 0;
  const m = await import('../ingest/match/index.js');
  const operation = m.operationOf(entity);
  const selection = await parseFields(entity, opts.fields);
  const overrides = (opts.map ?? []).map(m.parseOverride);
  const server = serverOf(opts);
  if (opts.out !== undefined && input !== '-' && resolve(opts.out) === resolve(input))
    throw new UsageError('--out must not be the input file');
  if (server === undefined) requireLocalStore(opts);

  const list = await m.openList(input);
  const uses = m.mapColumns(list.reader.columns, operation, overrides);
  process.stderr.write(`${describeMapping(entity, uses, m.unusedHeaders(list.reader.columns, uses))}\n`);

  const run = async (resolver: Resolver) => {
    const out = m.listOutput(opts.out);
    const bar = rowProgress('matching', list.input.totalBytes);
    const started = performance.now();
    const counts = await m
      .matchList({
        reader: list.reader,
        paramsOf: m.paramsOfRows(list.shape, uses, operation, overrides),
        resolver,
        writer: m.listWriter(list.shape, list.reader.columns, selection, {
          entity,
          formulaGuard: opts.formulaGuard,
        }),
        out,
        onProgress: (c) => bar.update(list.input.bytesRead(), c.rows, c.byStatus.matched),
        onMalformed: (line, reason) => process.stderr.write(`${list.input.name}:${line}: ${reason}\n`),
      })
      .finally(() => bar.stop());
    await out.close();
    process.stderr.write(`${describeCounts(counts, (performance.now() - started) / 1000)}\n`);
    return counts.malformed > 0 || counts.byStatus.quota_exceeded > 0 ? 1 : 0;
  };

  if (server !== undefined) {
    const onWait = (seconds: number, why: string) =>
      process.stderr.write(`enrich: ${why}; waiting ${seconds.toFixed(seconds < 10 ? 1 : 0)} s\n`);
    return run(m.remoteResolver({ ...server, operation, fields: selection?.paths, onWait }));
  }
  return withOpenStore(opts, (store) => run(m.localResolver(store, operation)));
}
