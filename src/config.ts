// Configuration from flags and environment: typed, validated at start with a clear message, frozen.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** `*`, or an origin as a browser sends it: scheme, lower-case host, a port unless the scheme's default. */
const ORIGIN = '^([*]|https?://([a-z0-9.-]+|\\[[0-9a-f:.]+\\])(:[0-9]+)?)$';

export const ConfigSchema = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  /** SQLite file, used when databaseUrl is not set. */
  dbPath: Type.String({ minLength: 1 }),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  databaseReadUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  logLevel: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
  ),
  /** Log one line per request (method, route, status, duration; never the query). */
  accessLog: Type.Boolean(),
  /** Rate of keys created without --rate, requests per second. */
  defaultRate: Type.Integer({ minimum: 1 }),
  /** How long graceful shutdown waits for in-flight requests, ms. */
  shutdownTimeoutMs: Type.Integer({ minimum: 0 }),
  /** Server processes (node:cluster); 1 serves from this process alone. */
  workers: Type.Integer({ minimum: 1, maximum: 1024 }),
  /** Rate limits and quotas shared through Redis, when set. */
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  /** With Redis unreachable: admit requests (`open`) or answer 503 (`closed`). */
  redisFailure: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  /** Prefix of every Redis key, so that several deployments can share one Redis. */
  redisPrefix: Type.String(),
  /** Audit entries older than this many days are pruned at start and daily. */
  auditRetentionDays: Type.Integer({ minimum: 1 }),
  /** Audit log and usage meter on (the default). Off only to measure what they cost. */
  accounting: Type.Boolean(),
  /** The accounting journal's directory. */
  journalDir: Type.String({ minLength: 1 }),
  /** Origins browsers may call from (CORS), each `scheme://host[:port]`, or `*` for any; off when absent. */
  corsOrigins: Type.Optional(Type.Array(Type.String({ pattern: ORIGIN }), { minItems: 1 })),
});
export type Config = Readonly<Static<typeof ConfigSchema>>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Where a server keeps its accounting journal by default: beside the SQLite file (not `<db>-journal`,
 * which is SQLite's own rollback journal), or ./data/accounting for PostgreSQL.
 */
export function defaultJournalDir(location: { dbPath: string; databaseUrl?: string | undefined }): string {
  return location.databaseUrl ? join('data', 'accounting') : `${location.dbPath}-accounting`;
}

type Source = Record<string, string | number | boolean | undefined>;

const integer = (value: string | number | boolean | undefined) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
/**
 * ENRICH_CORS_ORIGINS, comma-separated, each origin written as a browser sends it (a trailing slash, an
 * upper-case host or a default port is tidied away); anything else is left for the schema to refuse.
 */
function corsOrigins(value: string | number | boolean | undefined) {
  if (typeof value !== 'string') return value;
  const listed = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (listed.length === 0) return undefined;
  return listed.map((origin) => {
    try {
      const url = new URL(origin);
      const bare = url.pathname === '/' && !url.search && !url.hash && !url.username;
      return bare && /^https?:$/.test(url.protocol) ? url.origin : origin;
    } catch {
      return origin;
    }
  });
}
const boolean = (value: string | number | boolean | undefined) =>
  value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;

/**
 * Builds the configuration: flags win over environment, environment over defaults.
 * @example loadConfig({ port: '9000' }, process.env)
 */
export function loadConfig(flags: Source, env: NodeJS.ProcessEnv = process.env): Config {
  const pick = (flag: string, variable: string) => flags[flag] ?? env[variable];
  const candidate = {
    host: pick('host', 'HOST') ?? '127.0.0.1',
    port: integer(pick('port', 'PORT') ?? 8080),
    dbPath: pick('db', 'ENRICH_DB') ?? './data/enrich.db',
    databaseUrl: pick('databaseUrl', 'DATABASE_URL') || undefined,
    databaseReadUrl: pick('databaseReadUrl', 'DATABASE_READ_URL') || undefined,
    logLevel: pick('logLevel', 'LOG_LEVEL') ?? 'info',
    accessLog: boolean(pick('accessLog', 'ENRICH_ACCESS_LOG') ?? false),
    defaultRate: integer(pick('rate', 'ENRICH_DEFAULT_RATE') ?? 50),
    shutdownTimeoutMs: integer(pick('shutdownTimeout', 'ENRICH_SHUTDOWN_TIMEOUT_MS') ?? 10_000),
    workers: integer(pick('workers', 'ENRICH_WORKERS') ?? availableParallelism()),
    redisUrl: pick('redisUrl', 'REDIS_URL') || undefined,
    redisFailure: pick('redisFailure', 'ENRICH_REDIS_FAILURE') ?? 'open',
    redisPrefix: pick('redisPrefix', 'ENRICH_REDIS_PREFIX') ?? 'enrich:',
    auditRetentionDays: integer(pick('auditRetentionDays', 'ENRICH_AUDIT_RETENTION_DAYS') ?? 365),
    accounting: boolean(pick('accounting', 'ENRICH_ACCOUNTING') ?? true),
    journalDir: '',
    corsOrigins: corsOrigins(pick('corsOrigins', 'ENRICH_CORS_ORIGINS')),
  };
  candidate.journalDir = String(
    pick('journalDir', 'ENRICH_JOURNAL_DIR') ||
      defaultJournalDir({ dbPath: String(candidate.dbPath), databaseUrl: candidate.databaseUrl as string }),
  );
  const problems = [...Value.Errors(ConfigSchema, candidate)].map(
    (e) => `${e.path.slice(1) || 'config'}: ${e.message} (got ${JSON.stringify(e.value)})`,
  );
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return Object.freeze(candidate as Config);
}
