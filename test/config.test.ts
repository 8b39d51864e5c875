import { describe, expect, it } from 'vitest';
import { listenAddress, loadConfig, loadConnections, maskSecrets, maskUrl } from '../src/config.js';
import { ConfigError } from '../src/config-error.js';

describe('the audit retention setting', () => {
  it('keeps a year of audit entries unless told otherwise', () => {
    expect(loadConfig({}, {}).auditRetentionDays).toBe(365);
    expect(loadConfig({}, {}).accounting).toBe(true);
    expect(loadConfig({}, { ENRICH_ACCOUNTING: 'false' }).accounting).toBe(false);
    expect(loadConfig({}, { ENRICH_AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
  });

  it.each(['0', '-1', 'a year', '1.5'])('refuses %j at start, naming the setting', (value) => {
    expect(() => loadConfig({}, { ENRICH_AUDIT_RETENTION_DAYS: value })).toThrow(ConfigError);
    expect(() => loadConfig({}, { ENRICH_AUDIT_RETENTION_DAYS: value })).toThrow(/auditRetentionDays/);
  });
});

describe('the change-log retention setting', () => {
  it('keeps 90 days of change events unless told otherwise', () => {
    expect(loadConfig({}, {}).changesRetentionDays).toBe(90);
    expect(loadConfig({}, { ENRICH_CHANGES_RETENTION_DAYS: '7' }).changesRetentionDays).toBe(7);
  });

  it.each(['0', '-1', 'a month', '1.5'])('refuses %j at start, naming the setting', (value) => {
    expect(() => loadConfig({}, { ENRICH_CHANGES_RETENTION_DAYS: value })).toThrow(/changesRetentionDays/);
  });
});

describe('the CORS origins setting', () => {
  it('is off unless ENRICH_CORS_ORIGINS is set', () => {
    expect(loadConfig({}, {}).corsOrigins).toBeUndefined();
    expect(loadConfig({}, { ENRICH_CORS_ORIGINS: ' , ' }).corsOrigins).toBeUndefined();
  });

  it('takes `*`, or comma-separated origins written as a browser sends them', () => {
    expect(loadConfig({}, { ENRICH_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    const origins = 'https://App.Example.com/, http://localhost:3000,https://x.example.org:443';
    expect(loadConfig({}, { ENRICH_CORS_ORIGINS: origins }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
      'https://x.example.org',
    ]);
  });

  it.each([
    'app.example.com',
    'https://app.example.com/path',
    'https://*.example.com',
    'ftp://files.example.com',
    'mailto:ops@example.com',
    'https://app.example.com?x=1',
  ])('refuses %j at start, naming the setting and the value', (value) => {
    expect(() => loadConfig({}, { ENRICH_CORS_ORIGINS: `https://ok.example.com, ${value}` })).toThrow(
      new RegExp(`corsOrigins/1: .*${value.replace(/[?*.]/g, '\\$&')}`),
    );
  });
});

describe('connection URLs in messages', () => {
  it.each([
    ['postgres://app:s3cretpw@db:5432/enrich', 'postgres://app:***@db:5432/enrich'],
    ['mysql://user:s3cretpw@db/x', 'mysql://user:***@db/x'],
    ['redis://:s3cretpw@cache:6379/0', 'redis://:***@cache:6379/0'],
    ['rediss://default:s3c@ret/pw@cache', 'rediss://default:***@cache'],
    [
      'postgres://db/enrich?user=app&password=s3cretpw&sslmode=require',
      'postgres://db/enrich?user=app&password=***&sslmode=require',
    ],
    ['user:s3cretpw@db/x', 'user:***@db/x'],
    ['postgres://app@db/enrich', 'postgres://app@db/enrich'],
    ['postgres://db/enrich', 'postgres://db/enrich'],
  ])('show %s as %s', (url, shown) => {
    expect(maskUrl(url)).toBe(shown);
  });

  it.each([
    ['DATABASE_URL', 'mysql://user:s3cretpw@db/x', 'databaseUrl'],
    ['DATABASE_READ_URL', 'postgres://user:s3cretpw@db:99999/x', 'databaseReadUrl'],
    ['REDIS_URL', 'memcached://user:s3cretpw@cache', 'redisUrl'],
  ])('refuse a bad %s at start, naming it, its password masked', (variable, url, setting) => {
    for (const load of [
      () => loadConfig({}, { [variable]: url }),
      () => loadConnections({ [variable]: url }),
    ]) {
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(new RegExp(`${setting}: .*user:\\*\\*\\*@`));
      expect(load).not.toThrow(/s3cretpw/);
    }
  });

  it('are masked wherever their password appears in a text, as written and percent-decoded', () => {
    const env = { DATABASE_URL: 'postgres://app:p%40ss-word@db/x', REDIS_URL: 'redis://:another-one@cache' };
    const text = 'failed for postgres://app:p%40ss-word@db/x (password p@ss-word); redis said another-one';
    const masked = maskSecrets(text, env);
    expect(masked).toBe('failed for postgres://app:***@db/x (password ***); redis said ***');
  });
});

describe('the HTTPS, proxy and connection settings', () => {
  it('default to HTTP, no trusted proxy, 20 requests a second without a valid token, and bounded connections', () => {
    const config = loadConfig({}, {});
    expect(config).toMatchObject({
      unauthenticatedRate: 20,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      streamIdleTimeoutMs: 120_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 10_000,
    });
    expect(config.tlsCert).toBeUndefined();
    expect(config.trustProxy).toBeUndefined();
  });

  it('take the certificate and key from flags over the environment', () => {
    const config = loadConfig(
      { tlsCert: 'flag-cert.pem', tlsKey: 'flag-key.pem' },
      { ENRICH_TLS_CERT: 'env-cert.pem', ENRICH_TLS_KEY: 'env-key.pem' },
    );
    expect([config.tlsCert, config.tlsKey]).toEqual(['flag-cert.pem', 'flag-key.pem']);
  });

  it('refuse a certificate without its key', () => {
    expect(() => loadConfig({}, { ENRICH_TLS_CERT: 'cert.pem' })).toThrow(/give both/);
  });

  it.each([
    ['2', 2],
    ['10.0.0.0/8, 192.168.1.7', ['10.0.0.0/8', '192.168.1.7']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
    ['false', undefined],
    ['', undefined],
  ])('read ENRICH_TRUST_PROXY=%j as hops or trusted addresses', (value, trust) => {
    expect(loadConfig({}, { ENRICH_TRUST_PROXY: value }).trustProxy).toEqual(trust);
  });

  it.each(['true', '10.0.0.0/33', 'proxy.internal', '0'])('refuse ENRICH_TRUST_PROXY=%j', (value) => {
    expect(() => loadConfig({}, { ENRICH_TRUST_PROXY: value })).toThrow(/trustProxy/);
  });

  it('refuse a header timeout longer than the request timeout', () => {
    expect(() =>
      loadConfig({}, { ENRICH_HEADERS_TIMEOUT_MS: '40000', ENRICH_REQUEST_TIMEOUT_MS: '30000' }),
    ).toThrow(/headersTimeoutMs: must not exceed requestTimeoutMs/);
  });
});

describe('the metrics settings', () => {
  it('leave /metrics open on the API address unless set', () => {
    const config = loadConfig({}, {});
    expect(config.metricsToken).toBeUndefined();
    expect(config.metricsAddress).toBeUndefined();
  });

  it('take a token of 16 or more visible characters, never quoting one refused', () => {
    expect(loadConfig({}, { ENRICH_METRICS_TOKEN: 'a-long-enough-token' }).metricsToken).toBe(
      'a-long-enough-token',
    );
    for (const token of ['short', 'has a space in it, sixteen+']) {
      const refuse = () => loadConfig({}, { ENRICH_METRICS_TOKEN: token });
      expect(refuse).toThrow(ConfigError);
      expect(refuse).toThrow(/metricsToken: .* \(got "\*\*\*"\)/);
      expect(refuse).not.toThrow(token);
    }
  });

  it('take an address of its own as host:port', () => {
    expect(loadConfig({}, { ENRICH_METRICS_ADDRESS: '127.0.0.1:9464' }).metricsAddress).toBe(
      '127.0.0.1:9464',
    );
    expect(listenAddress('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(listenAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(listenAddress('localhost:0')).toEqual({ host: 'localhost', port: 0 });
  });

  it.each([
    ['9464', /metricsAddress: Expected string to match/],
    ['127.0.0.1', /metricsAddress: Expected string to match/],
    ['http://127.0.0.1:9464', /metricsAddress: Expected string to match/],
    ['127.0.0.1:70000', /metricsAddress: the port must be at most 65535/],
    ['127.0.0.1:8080', /metricsAddress: must differ from the API's own address/],
  ])('refuse ENRICH_METRICS_ADDRESS=%j', (value, message) => {
    expect(() => loadConfig({}, { ENRICH_METRICS_ADDRESS: value })).toThrow(message);
  });
});

describe('the webhook settings', () => {
  it("retries on the contract's schedule unless ENRICH_WEBHOOK_RETRY_SCHEDULE replaces it", () => {
    expect(loadConfig({}, {}).webhookRetrySchedule).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(loadConfig({}, { ENRICH_WEBHOOK_RETRY_SCHEDULE: '1, 2.5,0' }).webhookRetrySchedule).toEqual([
      1, 2.5, 0,
    ]);
    expect(loadConfig({}, {}).webhookAllowPrivate).toBe(false);
    expect(loadConfig({}, { ENRICH_WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
  });

  it.each(['1,soon', '-5', '1,,2'])('refuses a schedule of %j at start, naming the setting', (value) => {
    expect(() => loadConfig({}, { ENRICH_WEBHOOK_RETRY_SCHEDULE: value })).toThrow(/webhookRetrySchedule/);
  });
});
