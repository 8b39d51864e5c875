// The people searches under load (issue 13): by companyId, by seniority + department + selectedCountry, and
// by position words; each at its maximum rate, then at 80% of it for the p99 a deployment sees.
import { DEPARTMENTS } from '../src/vocabulary/departments.js';
import { SENIORITIES } from '../src/vocabulary/seniorities.js';
import { sampleLines, seededRandom } from './dataset.js';
import { cores, int, ms, table } from './format.js';
import type { Measured } from './loadgen.js';
import {
  type AtRate,
  atRateLatency,
  measureAtRate,
  measureRounds,
  type Server,
  type Target,
} from './lookups.js';
import type { LoadOptions } from './options.js';
import { medianOf } from './stats.js';

export const SEARCH_KINDS = ['companyId', 'seniority + department + selectedCountry', 'position'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchRow {
  name: string;
  backend: 'SQLite' | 'PostgreSQL';
  kind: SearchKind;
  max: Measured[];
  atRate: AtRate;
}

interface PersonFields {
  seniority?: string | null;
  department?: string | null;
  position?: string | null;
  location?: string[] | null;
  current_company?: { id?: string | null } | null;
}

/**
 * A position as people type it: its first word, and the start of its second (`Finance Manager` → `finance
 * man`, `Head of Engineering` → `head of`), as the issue's `eng man`.
 */
function typedPosition(position: string): string | undefined {
  const words = position
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  if (words.length === 0) return undefined;
  return words.length === 1 ? words[0]! : `${words[0]} ${words[1]!.slice(0, 3)}`;
}

const country = (location: string[] | null | undefined) =>
  /zealand|^nz$/i.test(location?.at(-1) ?? '') ? 'NZ' : 'AU';

/** Search paths drawn (seeded) from `count` people of the data set: each kind asks what those people hold. */
export async function sampleSearches(peopleFile: string, count: number, seed: number) {
  const lines = await sampleLines(peopleFile, count, seededRandom(seed ^ 0x5ea4c4));
  const people = lines.map((line) => JSON.parse(line.text) as PersonFields);
  const paths: Record<SearchKind, string[]> = {
    companyId: [],
    'seniority + department + selectedCountry': [],
    position: [],
  };
  for (const p of people) {
    const company = p.current_company?.id;
    if (company) paths.companyId.push(`/people/search?companyId=${encodeURIComponent(company)}`);
    const seniority = SENIORITIES.indexOf(p.seniority as never) + 1;
    const department = DEPARTMENTS.indexOf(p.department as never) + 1;
    if (seniority > 0 && department > 0) {
      paths['seniority + department + selectedCountry'].push(
        `/people/search?seniority=${seniority}&department=${department}&selectedCountry=${country(p.location)}`,
      );
    }
    const typed = p.position ? typedPosition(p.position) : undefined;
    if (typed) paths.position.push(`/people/search?position=${encodeURIComponent(typed)}`);
  }
  return paths;
}

/** The three searches against one server, as load targets. */
export function searchTargets(
  server: Server,
  token: string,
  paths: Record<SearchKind, string[]>,
  backend: SearchRow['backend'],
): Array<Target & { kind: SearchKind; backend: SearchRow['backend'] }> {
  return SEARCH_KINDS.map((kind) => ({
    name: `search by ${kind}${backend === 'PostgreSQL' ? ', PostgreSQL' : ''}`,
    kind,
    backend,
    server,
    method: 'POST' as const,
    paths: paths[kind],
    headers: { authorization: `Bearer ${token}` },
  }));
}

/** Every search target at its maximum rate (`runs` rounds), then each at 80% of its median maximum (`runs` times). */
export async function measureSearches(
  targets: Array<Target & { kind: SearchKind; backend: SearchRow['backend'] }>,
  load: LoadOptions,
): Promise<SearchRow[]> {
  const max = await measureRounds(targets, load);
  const rows: SearchRow[] = [];
  for (const target of targets) {
    const runs = max.get(target.name)!;
    const atRate = await measureAtRate(target, runs, load);
    rows.push({ name: target.name, backend: target.backend, kind: target.kind, max: runs, atRate });
  }
  return rows;
}

/** The target the issue sets: p99 at 80% of the maximum rate. */
export const SEARCH_P99_TARGET_MS = 50;

/** The searches as a markdown table: maximum rate, then the median p50/p99 at 80% of it, against the target. */
export function searchTable(rows: SearchRow[]): string {
  const body = rows.map((row) => {
    const { offered, runs } = row.atRate;
    const { p50Ms, p99Ms } = atRateLatency(row.atRate);
    const non2xx = [...row.max, ...runs].reduce((sum, m) => sum + m.non2xx + m.errors, 0);
    return [
      `\`${row.kind}\``,
      row.backend,
      int(medianOf(row.max, (m) => m.rps)),
      ms(medianOf(row.max, (m) => m.p99Ms)),
      cores(medianOf(row.max, (m) => m.serverCores)),
      int(offered),
      ms(p50Ms),
      ms(p99Ms),
      p99Ms <= SEARCH_P99_TARGET_MS ? 'met' : 'missed',
      int(non2xx),
    ];
  });
  const header = [
    'people search by',
    'store',
    'max req/s',
    'p99 ms at max',
    'server cores',
    'offered req/s (80%)',
    'p50 ms',
    'p99 ms',
    `p99 ≤ ${SEARCH_P99_TARGET_MS} ms`,
    'non-2xx',
  ];
  return table(header, body, [2, 3, 4, 5, 6, 7, 9]);
}
