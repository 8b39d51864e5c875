import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

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
