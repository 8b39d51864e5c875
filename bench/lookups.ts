// Lookup load tests: each kind of lookup against Enrich, interleaved with the static ceiling in every round.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Child, spawnChild, waitForLine } from './children.js';
import { BULK_ITEMS, COMPANY_LOOKUPS, type LookupKind, PERSON_LOOKUPS, type Sample } from './dataset.js';
import { loadGeneratorName, type Measured, runLoad } from './loadgen.js';
import { say } from './log.js';
import type { LoadOptions } from './options.js';
import { medianOf } from './stats.js';
import { waitForQuiet } from './system.js';

export interface Server {
  origin: string;
  pid: number;
  /** The PostgreSQL server (postmaster) it reads from, when that runs on this machine: its CPU is the server's too. */
  databasePid?: number;
}

const serverPids = (server: Server) => (server.databasePid ? [server.pid, server.databasePid] : [server.pid]);

/** One row of load: a server, the paths to cycle through, and the headers to send. */
export interface Target {
  name: string;
  server: Server;
  /** GET unless told. */
  method?: 'GET' | 'POST';
  paths: string[];
  headers: Record<string, string>;
  /** POST these bodies (the i-th to the i-th path) instead of GETs: bulk lookups. */
  bodies?: string[];
}

export const CEILING_PEOPLE = 'ceiling /people';
export const CEILING_COMPANY = 'ceiling /company';
/** Lookups by id against a second Enrich with the audit log and usage meter off: what they cost. */
export const UNACCOUNTED_ID = 'id, unaccounted';
/** Bulk lookups of BULK_ITEMS people by `id` per request, against Enrich and against the unaccounted one. */
export const BULK_ID = `bulk of ${BULK_ITEMS} by id`;
export const BULK_ID_UNACCOUNTED = `bulk of ${BULK_ITEMS} by id, unaccounted`;
/** With --postgres: every kind of lookup against a second Enrich serving the same data set from PostgreSQL. */
export const POSTGRES_LOOKUPS: readonly LookupKind[] = [...PERSON_LOOKUPS, ...COMPANY_LOOKUPS];
export const postgresTarget = (kind: LookupKind) => `${kind}, PostgreSQL`;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const specOf = (target: Target) => ({
  origin: target.server.origin,
  method: target.method,
  paths: target.paths,
  headers: target.headers,
  bodies: target.bodies,
});

/** Every target once per round, `runs` rounds: slow drifts of the machine then touch every figure alike. */
export async function measureRounds(targets: Target[], load: LoadOptions): Promise<Map<string, Measured[]>> {
  const results = new Map<string, Measured[]>(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= load.runs; round++) {
    for (const target of targets) {
      const { connections, duration, warmup } = load;
      const spec = specOf(target);
      if (load.waitQuiet > 0) await waitForQuiet(load.waitQuiet);
      const measured = await runLoad({ ...spec, connections, duration, warmup }, serverPids(target.server));
      results.get(target.name)!.push(measured);
      say(
        `round ${round}/${load.runs} ${target.name}: ${Math.round(measured.rps)} req/s, ` +
          `p99 ${measured.p99Ms.toFixed(2)} ms, server ${measured.serverCores.toFixed(2)} cores` +
          (measured.non2xx > 0 ? `, ${measured.non2xx} non-2xx` : ''),
      );
    }
  }
  return results;
}

/** Targets for Enrich's lookups of the given kinds. */
export function enrichTargets(enrich: Server, token: string, sample: Sample, kinds: readonly LookupKind[]) {
  return kinds.map(
    (kind): Target => ({
      name: kind,
      server: enrich,
      paths: sample.paths[kind],
      headers: bearer(token),
    }),
  );
}

/** Bulk lookups by `id` against a server: each request one of the sample's bulk bodies. */
export function bulkTarget(name: string, server: Server, token: string, sample: Sample): Target {
  const paths = sample.bulkBodies.map(() => '/v1/people/bulk');
  return { name, server, paths, headers: bearer(token), bodies: sample.bulkBodies };
}

/** Starts the static ceiling server (bench/static-server.ts) with the sample's median-size records. */
export async function startCeiling(
  sample: Sample,
  dir: string,
  workers: number,
): Promise<{ child: Child; server: Server }> {
  const personFile = path.join(dir, 'ceiling-person.json');
  const companyFile = path.join(dir, 'ceiling-company.json');
  writeFileSync(personFile, sample.personBody);
  writeFileSync(companyFile, sample.companyBody);
  const script = path.join(import.meta.dirname, 'static-server.ts');
  const args = ['--import', 'tsx', script, personFile, companyFile, `${workers}`];
  const child = spawnChild('static server', process.execPath, args);
  const match = await waitForLine(child, child.proc.stdout!, /listening on (http:\/\/\S+)/, 60_000);
  return { child, server: { origin: match[1]!, pid: child.pid } };
}

/** The full comparison: per round, the /people ceiling, the person lookups, the /company ceiling, the company lookups. */
export function ceilingAndLookups(enrich: Server, ceiling: Server, token: string, sample: Sample): Target[] {
  // The ceiling is sent the same request paths as the lookups it stands beside; it ignores the query.
  return [
    { name: CEILING_PEOPLE, server: ceiling, paths: sample.paths.id, headers: bearer(token) },
    ...enrichTargets(enrich, token, sample, PERSON_LOOKUPS),
    { name: CEILING_COMPANY, server: ceiling, paths: sample.paths.website, headers: bearer(token) },
    ...enrichTargets(enrich, token, sample, COMPANY_LOOKUPS),
  ];
}

/**
 * Issue 24's method, as an independent measurement ran it: `wrk -t1 -c32 -d8s`, request paths drawn uniformly
 * from 50,000 people and every company (not the few thousand the main rounds cycle through, whose records stay
 * in the processor's caches), Enrich and the static server alternated in each of three rounds, medians.
 */
export const ISSUE_24_METHOD = { people: 50_000, connections: 32, duration: 8 } as const;
/** The kinds judged against a ceiling beside `id` (name + company has its own row), in both methods' rows. */
export const OTHER_JUDGED_KINDS = ['ln_url', 'work_email', 'website', 'abn'] as const satisfies LookupKind[];
/** The kinds the method judges: `id` against 0.80, the others against 0.75. */
export const ISSUE_24_KINDS = ['id', ...OTHER_JUDGED_KINDS] as const;

/** How the method's load was driven, as the report names it: wrk's command line, or autocannon's options. */
export const methodLoad = (run: Pick<MethodRun, 'connections' | 'duration'>) =>
  loadGeneratorName() === 'wrk'
    ? `wrk -t1 -c${run.connections} -d${run.duration}s`
    : `autocannon, ${run.connections} connections, ${run.duration} s (wrk not installed)`;

export interface MethodRun {
  /** People the paths were drawn from (fewer when the data set holds fewer), and the load's shape. */
  people: number;
  connections: number;
  duration: number;
  lookups: Map<string, Measured[]>;
}

/** Issue 24's method against the running servers, its sample drawn from `wide` (ISSUE_24_METHOD.people people). */
export async function measureIssue24Method(
  enrich: Server,
  ceiling: Server,
  token: string,
  wide: Sample,
  load: LoadOptions & { quick: boolean },
): Promise<MethodRun> {
  const { connections } = ISSUE_24_METHOD;
  const duration = load.quick ? load.duration : ISSUE_24_METHOD.duration;
  const keep = new Set<string>([CEILING_PEOPLE, CEILING_COMPANY, ...ISSUE_24_KINDS]);
  const targets = ceilingAndLookups(enrich, ceiling, token, wide).filter((t) => keep.has(t.name));
  say(
    `issue 24's method: ${targets.length} targets × ${load.runs} round(s), ${methodLoad({ connections, duration })}`,
  );
  const lookups = await measureRounds(targets, { ...load, connections, duration });
  return { people: wide.personIds.length, connections, duration, lookups };
}

export interface AtRate {
  offered: number;
  /** One measurement per run (`runs` of them), like every other figure: quote their medians. */
  runs: Measured[];
}

/** The median p50 and p99 of the runs at a fixed rate. */
export const atRateLatency = (atRate: AtRate) => ({
  p50Ms: medianOf(atRate.runs, (m) => m.p50Ms),
  p99Ms: medianOf(atRate.runs, (m) => m.p99Ms),
});

/**
 * Lookups at `share` of the measured maximum rate, `runs` times: the latency a deployment sees below
 * saturation, its median quoted as every other figure's is (one run's p99 moves with whatever else ran then).
 */
export async function measureAtRate(
  target: Target,
  maxRuns: Measured[],
  load: LoadOptions,
  share = 0.8,
): Promise<AtRate> {
  const offered = Math.round(share * medianOf(maxRuns, (m) => m.rps));
  const { connections, duration, warmup } = load;
  const spec = specOf(target);
  const runs: Measured[] = [];
  for (let run = 1; run <= load.runs; run++) {
    if (load.waitQuiet > 0) await waitForQuiet(load.waitQuiet);
    const result = await runLoad(
      { ...spec, connections, duration, warmup, overallRate: offered },
      serverPids(target.server),
    );
    runs.push(result);
    say(
      `${target.name} at ${offered} req/s offered, run ${run}/${load.runs}: ` +
        `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`,
    );
  }
  return { offered, runs };
}
