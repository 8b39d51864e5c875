// Configuration from flags and environment: typed, validated at start with a clear message, frozen.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { FormatRegistry, type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from './config-error.js';
import { compileTrust } from './http/client-address.js';
import { DEFAULT_RETRY_SCHEDULE } from './vocabulary/webhook-retries.js';

/** A connection URL the WHATWG parser reads, as the PostgreSQL and Redis clients will. */
FormatRegistry.Set('url', (value) => URL.canParse(value));

/** `host:port`, an IPv6 host in brackets: where a listener of its own listens. */
const LISTEN_ADDRESS = '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$';

/** `*`, or an origin as a browser sends it: scheme, lower-case host, a port unless the scheme's default. */
const ORIGIN = '^([*]|https?://([a-z0-9.-]+|\\[[0-9a-f:.]+\\])(:[0-9]+)?)$';

export const ConfigSchema = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  /** SQLite file, used when databaseUrl is not set. */
  dbPath: Type.String({ minLength: 1 }),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', format: 'url' })),
  databaseReadUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', format: 'url' })),
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
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?://', format: 'url' })),
  /** With Redis unreachable: admit requests (`open`) or answer 503 (`closed`). */
  redisFailure: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  /** Prefix of every Redis key, so that several deployments can share one Redis. */
  redisPrefix: Type.String(),
  /** Audit entries older than this many days are pruned at start and daily. */
  auditRetentionDays: Type.Integer({ minimum: 1 }),
  /** Change-log entries older than this many days are pruned by the server in the background, hourly. */
  changesRetentionDays: Type.Integer({ minimum: 1 }),
  /** Audit log and usage meter on (the default). Off only to measure what they cost. */
  accounting: Type.Boolean(),
  /** The accounting journal's directory. */
  journalDir: Type.String({ minLength: 1 }),
  /** Where list jobs keep their uploads and results. */
  listsDir: Type.String({ minLength: 1 }),
  /**
   * On PostgreSQL, the directory of the server's local index (lookups read it, following the change log);
   * absent on SQLite, or when ENRICH_LOCAL_INDEX=false.
   */
  localDir: Type.Optional(Type.String({ minLength: 1 })),
  /** ENRICH_LOCAL_INDEX: a server on PostgreSQL keeps a local index (the default), or reads PostgreSQL. */
  localIndex: Type.Boolean(),
  /** Origins browsers may call from (CORS), each `scheme://host[:port]`, or `*` for any; off when absent. */
  corsOrigins: Type.Optional(Type.Array(Type.String({ pattern: ORIGIN }), { minItems: 1 })),
  /** HTTPS: the certificate (chain) and private key files, PEM; both or neither. */
  tlsCert: Type.Optional(Type.String({ minLength: 1 })),
  tlsKey: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * The proxies whose X-Forwarded-For is believed: how many hops in front of the server, or their
   * addresses and CIDR ranges (`loopback`, `linklocal`, `uniquelocal` too). None when absent.
   */
  trustProxy: Type.Optional(
    Type.Union([
      Type.Integer({ minimum: 1, maximum: 32 }),
      Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    ]),
  ),
  /** Requests per second (and burst) of one client address without a valid token; 0 turns the limit off. */
  unauthenticatedRate: Type.Integer({ minimum: 0 }),
  /** How long a client may take to send a request's headers, ms; an idle connection is closed after it. */
  headersTimeoutMs: Type.Integer({ minimum: 100 }),
  /** How long a client may take to send a whole request, body included, ms. */
  requestTimeoutMs: Type.Integer({ minimum: 100 }),
  /** How long a bulk stream may go with nothing read or written before it is ended and closed, ms. */
  streamIdleTimeoutMs: Type.Integer({ minimum: 100 }),
  /** How long an idle keep-alive connection is kept after a response, ms. */
  keepAliveTimeoutMs: Type.Integer({ minimum: 0 }),
  /** Open connections per server process; more are closed as they arrive. */
  maxConnections: Type.Integer({ minimum: 1 }),
  /** The bearer token a scrape of /metrics must carry (16 or more visible ASCII characters); open when absent. */
  metricsToken: Type.Optional(Type.String({ pattern: '^[\\x21-\\x7e]{16,}$' })),
  /** `host:port` where /metrics is served instead of the API's address (`127.0.0.1:9464`). */
  metricsAddress: Type.Optional(Type.String({ pattern: LISTEN_ADDRESS })),
  /** Seconds before each retry of a failed webhook delivery; failed for good after the last. */
  webhookRetrySchedule: Type.Array(Type.Number({ minimum: 0 }), { minItems: 0 }),
  /** Webhooks may reach loopback, private and link-local addresses (tests, closed networks). */
  webhookAllowPrivate: Type.Boolean(),
});
export type Config = Readonly<Static<typeof ConfigSchema>>;

/** The settings that may hold a password. */
const CONNECTIONS = ['databaseUrl', 'databaseReadUrl', 'redisUrl'] as const;
/** The settings that are secrets whole: never quoted. */
const SECRETS = ['metricsToken'];
const SECRET_VARIABLES = ['DATABASE_URL', 'DATABASE_READ_URL', 'REDIS_URL'] as const;

/** Where a connection URL's password sits: after the user's `:`, up to the last `@` of the authority. */
function passwordSpan(url: string): [number, number] | undefined {
  const scheme = url.indexOf('://');
  const start = scheme < 0 ? 0 : scheme + 3;
  const at = url.lastIndexOf('@');
  if (at < start) return undefined;
  const colon = url.indexOf(':', start);
  return colon < 0 || colon > at ? undefined : [colon + 1, at];
}

/**
 * A connection URL fit to print: its password, and any `password=` in its query, replaced by `***`.
 * Written for URLs a parser would refuse too, since those are the ones an error message quotes.
 * @example maskUrl('postgres://app:s3cret@db/enrich') // 'postgres://app:***@db/enrich'
 */
export function maskUrl(url: string): string {
  const span = passwordSpan(url);
  const masked = span ? `${url.slice(0, span[0])}***${url.slice(span[1])}` : url;
  return masked.replace(/([?&](?:password|pass|pwd)=)[^&#]*/gi, '$1***');
}

/**
 * Text (an error from a driver, say) with every password of DATABASE_URL, DATABASE_READ_URL and REDIS_URL
 * replaced by `***`, as written and percent-decoded: the last guard before anything is printed.
 */
export function maskSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let masked = text;
  for (const variable of SECRET_VARIABLES) {
    const url = env[variable];
    const span = url ? passwordSpan(url) : undefined;
    if (!url || !span) continue;
    masked = masked.replaceAll(url, maskUrl(url));
    const password = url.slice(span[0], span[1]);
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {}
    // Shorter ones would mask common words of the text; the whole URL is masked above whatever its length.
    for (const secret of new Set([password, decoded])) {
      if (secret.length >= 4) masked = masked.replaceAll(secret, '***');
    }
  }
  return masked;
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
/**
 * ENRICH_WEBHOOK_RETRY_SCHEDULE: comma-separated seconds replacing the contract's schedule; what is not a
 * number is kept as written, for the schema to refuse by name.
 */
function retrySchedule(value: string | number | boolean | undefined): unknown[] {
  if (value === undefined || String(value).trim() === '') return [...DEFAULT_RETRY_SCHEDULE];
  return String(value)
    .split(',')
    .map((part) => (part.trim() !== '' && Number.isFinite(Number(part)) ? Number(part) : part));
}

/** ENRICH_TRUST_PROXY: unset or `false` for none, a number of hops, or comma-separated addresses and ranges. */
function trustProxy(value: string | number | boolean | undefined) {
  if (typeof value !== 'string') return value === false ? undefined : value;
  const text = value.trim();
  if (text === '' || text === 'false') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
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
    changesRetentionDays: integer(pick('changesRetentionDays', 'ENRICH_CHANGES_RETENTION_DAYS') ?? 90),
    accounting: boolean(pick('accounting', 'ENRICH_ACCOUNTING') ?? true),
    journalDir: '',
    listsDir: '',
    localIndex: boolean(pick('localIndex', 'ENRICH_LOCAL_INDEX') ?? true),
    localDir: undefined as string | undefined,
    corsOrigins: corsOrigins(pick('corsOrigins', 'ENRICH_CORS_ORIGINS')),
    tlsCert: pick('tlsCert', 'ENRICH_TLS_CERT') || undefined,
    tlsKey: pick('tlsKey', 'ENRICH_TLS_KEY') || undefined,
    trustProxy: trustProxy(pick('trustProxy', 'ENRICH_TRUST_PROXY')),
    unauthenticatedRate: integer(pick('unauthenticatedRate', 'ENRICH_UNAUTHENTICATED_RATE') ?? 20),
    headersTimeoutMs: integer(pick('headersTimeout', 'ENRICH_HEADERS_TIMEOUT_MS') ?? 10_000),
    requestTimeoutMs: integer(pick('requestTimeout', 'ENRICH_REQUEST_TIMEOUT_MS') ?? 30_000),
    streamIdleTimeoutMs: integer(pick('streamIdleTimeout', 'ENRICH_STREAM_IDLE_TIMEOUT_MS') ?? 120_000),
    keepAliveTimeoutMs: integer(pick('keepAliveTimeout', 'ENRICH_KEEP_ALIVE_TIMEOUT_MS') ?? 72_000),
    maxConnections: integer(pick('maxConnections', 'ENRICH_MAX_CONNECTIONS') ?? 10_000),
    metricsToken: pick('metricsToken', 'ENRICH_METRICS_TOKEN') || undefined,
    metricsAddress: pick('metricsAddress', 'ENRICH_METRICS_ADDRESS') || undefined,
    webhookRetrySchedule: retrySchedule(pick('webhookRetrySchedule', 'ENRICH_WEBHOOK_RETRY_SCHEDULE')),
    webhookAllowPrivate: boolean(pick('webhookAllowPrivate', 'ENRICH_WEBHOOK_ALLOW_PRIVATE') ?? false),
  };
  candidate.journalDir = String(
    pick('journalDir', 'ENRICH_JOURNAL_DIR') ||
      defaultJournalDir({ dbPath: String(candidate.dbPath), databaseUrl: candidate.databaseUrl as string }),
  );
  candidate.listsDir = String(
    pick('listsDir', 'ENRICH_LISTS_DIR') ||
      (candidate.databaseUrl ? join('data', 'lists') : `${String(candidate.dbPath)}-lists`),
  );
  if (candidate.databaseUrl && candidate.localIndex === true)
    candidate.localDir = String(pick('localDir', 'ENRICH_LOCAL_DIR') || join('data', 'local'));
  refuseInvalid(ConfigSchema, candidate, crossChecks(candidate as Config));
  return Object.freeze(candidate as Config);
}

/**
 * Throws a ConfigError listing what is wrong with the settings, each with the value given — a URL's
 * password masked — or returns when nothing is.
 */
function refuseInvalid(schema: TSchema, candidate: object, more: string[] = []): void {
  const problems = [...Value.Errors(schema, candidate)].map((e) => {
    const setting = e.path.slice(1);
    const shown = SECRETS.includes(setting)
      ? '***'
      : (CONNECTIONS as readonly string[]).includes(setting)
        ? maskUrl(String(e.value))
        : e.value;
    return `${setting || 'config'}: ${e.message} (got ${JSON.stringify(shown)})`;
  });
  problems.push(...more);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
}

/** What no one setting's schema can say: settings that go together, and trusted proxy addresses. */
function crossChecks(config: Config): string[] {
  const problems: string[] = [];
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    problems.push('tlsCert, tlsKey: give both the certificate and the key file for HTTPS, or neither');
  }
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push(
      `headersTimeoutMs: must not exceed requestTimeoutMs (got ${config.headersTimeoutMs} > ${config.requestTimeoutMs})`,
    );
  }
  if (config.metricsAddress !== undefined && /:[0-9]+$/.test(config.metricsAddress)) {
    const { host, port } = listenAddress(config.metricsAddress);
    if (port > 65_535) problems.push(`metricsAddress: the port must be at most 65535 (got ${port})`);
    else if (port !== 0 && port === config.port && host === config.host) {
      problems.push(`metricsAddress: must differ from the API's own address (got ${config.metricsAddress})`);
    }
  }
  if (Array.isArray(config.trustProxy)) {
    try {
      compileTrust(config.trustProxy);
    } catch (error) {
      problems.push(`trustProxy: ${(error as Error).message} (got ${JSON.stringify(config.trustProxy)})`);
    }
  }
  return problems;
}

/**
 * The host and port of a `host:port` setting (ENRICH_METRICS_ADDRESS), an IPv6 host without its brackets.
 * @example listenAddress('[::1]:9464') // { host: '::1', port: 9464 }
 */
export function listenAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port: Number(address.slice(colon + 1)) };
}

const ConnectionsSchema = Type.Pick(ConfigSchema, CONNECTIONS);
export type Connections = Readonly<Static<typeof ConnectionsSchema>>;

/**
 * DATABASE_URL, DATABASE_READ_URL and REDIS_URL, validated as `enrich serve` validates them (the same
 * schema, the same messages, passwords masked): every command that opens the store checks them first.
 */
export function loadConnections(env: NodeJS.ProcessEnv = process.env): Connections {
  const candidate = {
    databaseUrl: env.DATABASE_URL || undefined,
    databaseReadUrl: env.DATABASE_READ_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
  };
  refuseInvalid(ConnectionsSchema, candidate);
  return Object.freeze(candidate);
}
