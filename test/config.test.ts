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
