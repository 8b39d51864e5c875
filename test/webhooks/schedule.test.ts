// judgeAttempt: what an attempt's answer does to its delivery and its endpoint (contract §8).
import { describe, expect, it } from 'vitest';
import { judgeAttempt } from '../../src/webhooks/schedule.js';

const NOW = new Date('2026-11-25T12:00:00.000Z');
const SCHEDULE = [5, 300];
const DAY = 24 * 3600 * 1000;

describe('judgeAttempt', () => {
  it('ends a delivery on any 2xx, and the endpoint is healthy again', () => {
    for (const status of [200, 202, 204, 299]) {
      expect(judgeAttempt({ status_code: status }, 3, SCHEDULE, NOW, '2026-11-20T00:00:00.000Z')).toEqual({
        outcome: { status: 'delivered' },
        health: 'succeeded',
      });
    }
  });

  it('retries anything else on the schedule, then fails the delivery', () => {
    expect(judgeAttempt({ status_code: 500 }, 0, SCHEDULE, NOW, null)).toEqual({
      outcome: { status: 'pending', next_attempt_at: new Date(NOW.getTime() + 5000) },
      health: 'failed',
    });
    expect(judgeAttempt({ status_code: null }, 1, SCHEDULE, NOW, null).outcome).toEqual({
      status: 'pending',
      next_attempt_at: new Date(NOW.getTime() + 300_000),
    });
    expect(judgeAttempt({ status_code: 302 }, 2, SCHEDULE, NOW, null).outcome).toEqual({ status: 'failed' });
  });

  it('disables the endpoint on a 410, and after 5 days of failures without a success', () => {
    expect(judgeAttempt({ status_code: 410 }, 0, SCHEDULE, NOW, null)).toEqual({
      outcome: { status: 'failed' },
      health: 'gone',
    });
    const almost = new Date(NOW.getTime() - 5 * DAY + 1000).toISOString();
    expect(judgeAttempt({ status_code: 503 }, 0, SCHEDULE, NOW, almost).health).toBe('failed');
    const five = new Date(NOW.getTime() - 5 * DAY).toISOString();
    expect(judgeAttempt({ status_code: 503 }, 0, SCHEDULE, NOW, five).health).toBe('failing');
  });
});
