// enrich suppress / unsuppress by the SHA-256 of an address, as the real binary runs them.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enrich } from '../helpers/cli.js';

describe('suppression by a hashed address', () => {
  it('deletes the person a hash finds, refuses a bad hash, and is lifted by the address', () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-privacy-'));
    const db = join(dir, 'enrich.db');
    const people = join(dir, 'people.ndjson');
    writeFileSync(
      people,
      `${JSON.stringify({ id: 'fp000000000001', emails: { work: [{ value: 'Jo@Acme.com.au' }] } })}\n`,
    );
    expect(enrich(['import', 'people', people, '--db', db]).status).toBe(0);
    const hash = createHash('sha256').update('jo@acme.com.au').digest('hex').toUpperCase();

    const bad = enrich(['suppress', 'people', '--work-email-sha256', 'jo@acme.com.au', '--db', db]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--work-email-sha256: .*64 hex digits/);

    const suppressed = enrich(['suppress', 'people', '--work-email-sha256', hash, '--db', db]);
    expect(suppressed.stdout).toMatch(/Suppressed people by work_email_sha256: 1 deleted \(fp000000000001\)/);
    expect(enrich(['import', 'people', people, '--db', db]).stdout).toMatch(/1 suppressed/);

    const lifted = enrich(['unsuppress', 'people', '--work-email', 'JO@acme.com.au', '--db', db]);
    expect(lifted.stdout).toMatch(/Unsuppressed people by work_email: \d+ identifier hash\(es\) removed/);
    expect(enrich(['import', 'people', people, '--db', db]).stdout).toMatch(/1 people imported \(1 inserted/);
  });
});
