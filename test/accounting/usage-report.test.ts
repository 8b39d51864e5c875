// Usage rows merged, summed and dated: what GET /v1/usage and `enrich usage` report.
import { describe, expect, it } from 'vitest';
import { mergeUsage, monthStart } from '../../src/accounting/usage-report.js';

describe('usage reports', () => {
  it('merge rows of one key, day and operation and sort them by day', () => {
    const row = {
      key_id: 'k',
      operation: 'people' as const,
      requests: 1,
      matched: 1,
      not_found: 0,
      ambiguous: 0,
      rejected: 0,
    };
    expect(
      mergeUsage([
        { ...row, day: '2026-01-02' },
        { ...row, day: '2026-01-01' },
        { ...row, day: '2026-01-02' },
      ]),
    ).toEqual([
      { ...row, day: '2026-01-01' },
      { ...row, day: '2026-01-02', requests: 2, matched: 2 },
    ]);
  });

  it('start the period on the first of the UTC month', () => {
    expect(monthStart(new Date('2026-12-31T23:59:59Z'))).toBe('2026-12-01');
  });
});
