import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES } from '../../src/identifiers/key-bytes.js';
import { companyLookupKey, personLookupKey } from '../../src/identifiers/params.js';
import { thrownProblem } from './thrown-problem.js';

/** `printf %s jane.citizen@acme.com.au | sha256sum` */
const HASH = '94b55c7229d687381c370f3b7c7a3ec3fa432bb1650f17287026c2962a2eee2d';

describe('personLookupKey', () => {
  it.each([
    ['id', ' fp000000067890 ', { kind: 'id', value: 'fp000000067890' }],
    ['ln_url', 'https://au.linkedin.com/in/Jane-Doe/?trk=x', { kind: 'linkedin', value: 'jane-doe' }],
    ['ln_slug', 'Jane-Doe', { kind: 'linkedin', value: 'jane-doe' }],
    ['work_email', ' Jane.Doe@ACME.com.au ', { kind: 'work_email', value: 'jane.doe@acme.com.au' }],
    ['personal_email', 'JANE@Example.COM', { kind: 'personal_email', value: 'jane@example.com' }],
    ['work_email_sha256', ` ${HASH.toUpperCase()} `, { kind: 'work_email_sha256', value: HASH }],
    ['personal_email_sha256', HASH, { kind: 'personal_email_sha256', value: HASH }],
  ] as const)('turns %s=%j into the key it was stored under', (param, raw, key) => {
    expect(personLookupKey(param, raw)).toEqual(key);
  });

  it('refuses a company URL given as ln_url, naming the parameter and the expected form', () => {
    const problem = thrownProblem(() => personLookupKey('ln_url', 'https://www.linkedin.com/company/acme'));
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toBe(
      'ln_url: a LinkedIn company URL, but /people expects a profile URL (linkedin.com/in/…)',
    );
    expect(problem.extensions).toEqual({ parameter: 'ln_url' });
  });

  it('refuses a value whose normalised bytes are too many for the index, however few its characters', () => {
    for (const [param, raw] of [
      ['ln_slug', '%E2%82%AC'.repeat(1400)],
      ['ln_slug', '€'.repeat(400)],
      ['ln_url', `linkedin.com/in/${'ü'.repeat(600)}`],
      ['work_email', `${'é'.repeat(600)}@acme.com.au`],
      ['personal_email', `${'x'.repeat(1100)}@acme.com.au`],
    ] as const) {
      const problem = thrownProblem(() => personLookupKey(param, raw));
      expect(problem.detail).toBe(`${param}: longer than 1,024 bytes once normalised (UTF-8)`);
      expect(problem.extensions).toEqual({ parameter: param, max_bytes: MAX_IDENTIFIER_BYTES });
    }
    expect(personLookupKey('ln_slug', '€'.repeat(341)).value).toHaveLength(341);
  });
});

describe('companyLookupKey', () => {
  it.each([
    ['id', 'f000000117274', { kind: 'id', value: 'f000000117274' }],
    ['ln_url', 'linkedin.com/company/Acme-Pty-Ltd/about', { kind: 'linkedin', value: 'acme-pty-ltd' }],
    ['ln_slug', '/acme-pty-ltd/', { kind: 'linkedin', value: 'acme-pty-ltd' }],
    ['abn', '51 824 753 556', { kind: 'abn', value: '51824753556' }],
    ['fqdn', 'ACME.COM.AU', { kind: 'domain', value: 'acme.com.au' }],
    ['website', 'HTTPS://www.Acme.com.au:443/about?x#y', { kind: 'domain', value: 'acme.com.au' }],
    ['website', 'acme.com.au.', { kind: 'domain', value: 'acme.com.au' }],
  ] as const)('turns %s=%j into the key it was stored under', (param, raw, key) => {
    expect(companyLookupKey(param, raw)).toEqual(key);
  });

  it('gives a subdomain its registrable domain to fall back on', () => {
    expect(companyLookupKey('website', 'https://shop.acme.com.au/cart')).toEqual({
      kind: 'domain',
      value: 'shop.acme.com.au',
      fallback: 'acme.com.au',
    });
    expect(companyLookupKey('fqdn', 'shop.acme.com.au')).toEqual({
      kind: 'domain',
      value: 'shop.acme.com.au',
      fallback: 'acme.com.au',
    });
  });

  it('gives no fallback for a public suffix, which has no registrable domain', () => {
    expect(companyLookupKey('fqdn', 'com.au')).toEqual({ kind: 'domain', value: 'com.au' });
  });

  it('refuses a profile URL given as ln_url', () => {
    const problem = thrownProblem(() => companyLookupKey('ln_url', 'linkedin.com/in/jane-doe'));
    expect(problem.detail).toBe(
      'ln_url: a LinkedIn profile URL, but /company expects a company URL (linkedin.com/company/…)',
    );
  });

  it('says whether an ABN has the wrong length or fails its checksum', () => {
    expect(thrownProblem(() => companyLookupKey('abn', '5182475355')).detail).toBe('abn must be 11 digits');
    expect(thrownProblem(() => companyLookupKey('abn', '51824753557')).detail).toBe(
      'abn fails the ABN checksum',
    );
  });
});

describe('lookup key errors', () => {
  const person = (param: Parameters<typeof personLookupKey>[0], raw: string) => () =>
    personLookupKey(param, raw);
  const company = (param: Parameters<typeof companyLookupKey>[0], raw: string) => () =>
    companyLookupKey(param, raw);

  it.each([
    ['id', person('id', 'jane doe/secret'), /^id: not a record id/],
    ['id', company('id', 'x'.repeat(65)), /^id: not a record id/],
    ['work_email', person('work_email', 'jane.doe.secret'), /^work_email: not an e-mail address/],
    ['personal_email', person('personal_email', 'jane@secret'), /^personal_email: not an e-mail address/],
    [
      'work_email_sha256',
      person('work_email_sha256', 'jane@secret.com'),
      /^work_email_sha256: not a SHA-256/,
    ],
    ['work_email_sha256', person('work_email_sha256', `${HASH}0`), /expected 64 hex digits/],
    [
      'personal_email_sha256',
      person('personal_email_sha256', `g${HASH.slice(1)}`),
      /^personal_email_sha256: /,
    ],
    ['ln_slug', person('ln_slug', 'https://linkedin.com/in/jane-secret'), /^ln_slug: .*ln_url/],
    ['ln_slug', company('ln_slug', 'jane secret'), /^ln_slug: not a LinkedIn slug/],
    ['ln_url', person('ln_url', 'https://example.com/in/jane-secret'), /^ln_url: not a LinkedIn/],
    ['website', company('website', 'https:///secret'), /^website: no host name/],
    ['fqdn', company('fqdn', 'secret'), /^fqdn: a single-label host name/],
    ['fqdn', company('fqdn', '10.0.0.7'), /^fqdn: an IP address/],
    ['abn', company('abn', 'secret'), /^abn must be 11 digits$/],
  ])('names %s and never quotes the value', (param, lookup, detail) => {
    const problem = thrownProblem(lookup);
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toMatch(detail);
    expect(problem.detail).not.toMatch(/secret|jane|10\.0\.0\.7|xxxx/);
    expect(problem.extensions).toEqual({ parameter: param });
  });
});
