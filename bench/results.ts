// One `npm run bench` run's results, and the ratios every part of the report quotes.

import type { AuditStorage } from './audit-storage.js';
import { type LookupKind, PERSON_LOOKUPS } from './dataset.js';
import type { DuringRun } from './during.js';
import type { FeedRun } from './feed.js';
import type { ImportRun, PostgresImports } from './imports.js';
import type { JsonServerRun } from './json-server.js';
import type { Measured } from './loadgen.js';
import { type AtRate, CEILING_COMPANY, CEILING_PEOPLE, type MethodRun } from './lookups.js';
import type { MatchRun } from './match-run.js';
import type { MemoryFigure } from './memory.js';
import type { BenchOptions } from './options.js';
import type { SearchRow } from './searches.js';
import { medianOf } from './stats.js';
import type { StreamRun } from './stream.js';
import type { Machine } from './system.js';

export interface BenchResults {
  options: BenchOptions;
  command: string;
  machine: Machine;
  /** 1, 5 and 15-minute load averages when the run started: was the machine quiet? */
  loadAverage: number[];
  /** What was benchmarked: a commit, or the working tree on one. */
  built: string;
  date: Date;
  imports: ImportRun[];
  /**
   * With --postgres: the same imports into PostgreSQL, the server they ran on, and the transactions its
   * database committed while every lookup round ran (the PostgreSQL server's lookups are the only ones on it).
   */
  postgres?: {
    version: string;
    local: boolean;
    imports: PostgresImports['runs'];
    lookupTransactions: number;
  };
  lookups: Map<string, Measured[]>;
  atRate: AtRate;
  /** Issue 24's method: wider samples, 32 connections (bench/lookups.ts ISSUE_24_METHOD). */
  method: MethodRun;
  /** One NDJSON bulk of 1,000,000 lookups by `id` per run, against the main server. */
  streams: StreamRun[];
  /** The people searches, per store; none with --skip-search. */
  searches: SearchRow[];
  /** One reader paging through the change log the imports wrote, once per run. */
  feed: FeedRun[];
  /** id lookups during a refresh and its webhook deliveries (issues 20, 21). */
  during: DuringRun[];
  /** `enrich match` of a list against the same store; none with --skip-match. */
  match: MatchRun[];
  /** The main server's VmHWM after every lookup run, at options.people. */
  mainPeakRssBytes: number;
  /** The main store's audit log once every lookup run is folded into it (SQLite). */
  audit?: AuditStorage;
  bodyBytes: { person: number; company: number };
  jsonServer: JsonServerRun[];
  memory: Array<MemoryFigure | { people: number; skipped: string }>;
}

export const rps = (runs: Measured[] | undefined) => medianOf(runs ?? [], (m) => m.rps);
const ceilingOf = (kind: LookupKind) =>
  (PERSON_LOOKUPS as readonly string[]).includes(kind) ? CEILING_PEOPLE : CEILING_COMPANY;

/** Requests runs answered, their warm-ups included: each held its rate over `seconds` (warm-up + duration). */
export const answeredWithWarmup = (runs: readonly Measured[], seconds: number) =>
  runs.reduce((sum, m) => sum + m.rps * seconds, 0);

/** Requests served per CPU-second of the server: what a busy machine disturbs least. */
export const perCore = (runs: Measured[] | undefined) => medianOf(runs ?? [], (m) => m.rps / m.serverCores);

/** Enrich's requests per server CPU-second for a kind of lookup as a share of its ceiling's. */
export const perCoreRatio = (r: BenchResults, kind: LookupKind) =>
  perCore(r.lookups.get(kind)) / perCore(r.lookups.get(ceilingOf(kind)));

/** Enrich's median rate for a kind of lookup as a share of its ceiling's median rate in the same rounds. */
export const ratioIn = (lookups: Map<string, Measured[]>, kind: LookupKind) =>
  rps(lookups.get(kind)) / rps(lookups.get(ceilingOf(kind)));

/** The same, in the run's main rounds. */
export const ratio = (r: BenchResults, kind: LookupKind) => ratioIn(r.lookups, kind);
