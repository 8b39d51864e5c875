// The alerting rules in docs/prometheus: valid (promtool check rules), doing what their tests say (promtool test
// rules), each with a runbook line, and naming only metrics a running server exposes. promtool comes with
// Debian's `prometheus` package, which CI installs (.ci/run).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

const RULES = fileURLToPath(new URL('../../docs/prometheus/alerts.yml', import.meta.url));
const RULE_TESTS = fileURLToPath(new URL('../../docs/prometheus/alerts.test.yml', import.meta.url));

function promtool(...args: string[]) {
  const run = spawnSync('promtool', args, { encoding: 'utf8' });
  if (run.error)
    throw new Error(`promtool could not be run (${run.error.message}): apt-get install prometheus`);
  return { status: run.status, output: run.stdout + run.stderr };
}

/** The rules' alerts, each with its text (up to the next alert): enough to read names, exprs and annotations. */
function alerts(): Array<{ name: string; text: string }> {
  const text = readFileSync(RULES, 'utf8').replace(/^\s*#.*$/gm, ''); // the commented-out placeholder is no rule
  return text
    .split(/^\s*- alert: /m)
    .slice(1)
    .map((part) => ({ name: part.split('\n', 1)[0]!.trim(), text: part }));
}

/** The metric names a scrape lists (`# TYPE name type`), with a histogram's series names. */
function exposed(scrape: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of scrape.matchAll(/^# TYPE (\w+) (\w+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name! + suffix);
  }
  return names;
}

describe('the alerting rules', () => {
  it('are valid rules, by promtool check rules', () => {
    const check = promtool('check', 'rules', RULES);
    expect(check.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.status).toBe(0);
  });

  it('fire when their tests say, with the labels and annotations they say, by promtool test rules', () => {
    const test = promtool('test', 'rules', RULE_TESTS);
    expect(test.output).toMatch(/SUCCESS/);
    expect(test.status).toBe(0);
  });

  it('cover what an operator must hear about, each with a summary, a description and a runbook line', () => {
    const found = alerts();
    expect(found.map((a) => a.name)).toEqual(
      expect.arrayContaining([
        'EnrichNotReady',
        'EnrichHighErrorRatio',
        'EnrichSlowLookups',
        'EnrichAccountingFoldLagging',
        'EnrichAccountingJournalFailing',
        'EnrichKeyQuotaNearlySpent',
        'EnrichWebhookBacklog',
      ]),
    );
    for (const { name, text } of found) {
      for (const annotation of ['summary', 'description', 'runbook'])
        expect(text, `${name} has a ${annotation}`).toMatch(new RegExp(`^\\s+${annotation}: "\\S`, 'm'));
      expect(text, `${name} has a severity`).toMatch(/^\s+severity: (critical|warning|info)$/m);
      expect(readFileSync(RULE_TESTS, 'utf8'), `${name} is tested`).toContain(`alertname: ${name}`);
    }
  });

  describe('against a running server', () => {
    let t: TestApp;
    let scrape: string;

    beforeAll(async () => {
      t = await testApp('sqlite');
      // The series a busy server has: a key with a quota, lookups served.
      const limited = await t.newKey({ quota: 100 });
      await t.app.inject({ url: '/people?id=fp000000000001', headers: { authorization: limited.auth } });
      scrape = (await t.app.inject({ url: '/metrics' })).body;
    });

    afterAll(() => t?.close());

    it('name only metrics the server exposes (and Prometheus’s own up)', () => {
      const names = exposed(scrape);
      for (const { name, text } of alerts()) {
        const expr = /expr: ([\s\S]*?)\n\s+(?:for|labels):/.exec(text)![1]!;
        const metrics = [...expr.matchAll(/\b([a-z_][a-z0-9_]*)\s*(?:\{|\[|\)|\s|$|\/|>|<|=)/g)]
          .map((m) => m[1]!)
          .filter((word) => word.startsWith('enrich_') || word === 'up');
        expect(metrics.length, `${name} names a metric`).toBeGreaterThan(0);
        for (const metric of metrics)
          if (metric !== 'up') expect(names, `${name}: ${metric}`).toContain(metric);
      }
    });

    it('expose the state the rules watch, with values', () => {
      expect(scrape).toMatch(/^enrich_ready 1$/m);
      expect(scrape).toMatch(/^enrich_accounting_journal_failing 0$/m);
      expect(scrape).toMatch(/^enrich_accounting_fold_lag_seconds \d/m);
      expect(scrape).toMatch(/^enrich_key_quota\{key="key_\w+"\} 100$/m);
      expect(scrape).toMatch(/^enrich_key_quota_used\{key="key_\w+"\} [01]$/m);
    });
  });
});
