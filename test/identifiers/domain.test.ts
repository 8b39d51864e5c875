import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseHost, registrableDomain } from '../../src/identifiers/domain.js';
import { thrownProblem } from './thrown-problem.js';
import { assertIdempotent } from './typed-input.js';

describe('normaliseHost', () => {
  it.each([
    'acme.com.au',
    'ACME.COM.AU',
    'acme.com.au.',
    'www.acme.com.au',
    'HTTPS://www.Acme.com.au:443/about?x#y',
    'http://acme.com.au',
    'https://acme.com.au/',
    '//acme.com.au/x',
    '  acme.com.au  ',
    'acme.com.au:8080',
    'https://user:secret@www.acme.com.au/',
    'acme.com.au?utm_source=x',
    'acme.com.au#top',
    'https://acme.com.au\\path',
  ])('reads %j as acme.com.au', (input) => {
    expect(normaliseHost(input)).toBe('acme.com.au');
  });

  it('keeps a subdomain other than www', () => {
    expect(normaliseHost('https://shop.acme.com.au/cart')).toBe('shop.acme.com.au');
  });

  it('converts an internationalised host to punycode, however it was typed', () => {
    expect(normaliseHost('https://www.Bücher.de/')).toBe('xn--bcher-kva.de');
    expect(normaliseHost('xn--bcher-kva.de')).toBe('xn--bcher-kva.de');
  });

  it.each([
    ['an empty value', ''],
    ['only a scheme', 'https://'],
    ['spaces inside', 'acme corp.com.au'],
    ['a single label', 'localhost'],
    ['an IPv4 address', 'http://192.168.0.1/'],
    ['an IPv6 address', 'http://[::1]:8080/'],
    ['a label starting with a hyphen', '-acme.com.au'],
    ['an underscore', 'acme_corp.com.au'],
    ['a label longer than 63', `${'a'.repeat(64)}.com`],
  ])('refuses %s with invalid_parameter', (_, input) => {
    expect(thrownProblem(() => normaliseHost(input)).code).toBe('invalid_parameter');
  });

  it('leaves a normalised host unchanged when normalised again', () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        const once = normaliseHost(domain);
        expect(normaliseHost(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves any host it accepts unchanged when normalised again', () => {
    assertIdempotent(normaliseHost);
  });

  it('reads a host typed with scheme, www, port, path, query, fragment, trailing dot or any case as the host', () => {
    fc.assert(
      fc.property(
        fc.domain(),
        fc.record({
          scheme: fc.constantFrom('', 'http://', 'https://', 'HTTP://'),
          www: fc.constantFrom('', 'www.', 'WWW.'),
          dot: fc.constantFrom('', '.'),
          port: fc.constantFrom('', ':80', ':8443'),
          path: fc.constantFrom('', '/', '/about/us'),
          query: fc.constantFrom('', '?x=1'),
          fragment: fc.constantFrom('', '#y'),
        }),
        fc.boolean(),
        (domain, v, upper) => {
          const host = upper ? domain.toUpperCase() : domain;
          const typed = `${v.scheme}${v.www}${host}${v.dot}${v.port}${v.path}${v.query}${v.fragment}`;
          expect(normaliseHost(typed)).toBe(normaliseHost(domain));
        },
      ),
    );
  });
});

describe('registrableDomain', () => {
  it.each([
    ['shop.acme.com.au', 'acme.com.au'],
    ['acme.com.au', 'acme.com.au'],
    ['a.b.acme.co.uk', 'acme.co.uk'],
    ['www.acme.com', 'acme.com'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
  ])('finds the registrable domain of %s: %s', (host, domain) => {
    expect(registrableDomain(host)).toBe(domain);
  });

  it('is null for a public suffix itself', () => {
    expect(registrableDomain('com.au')).toBeNull();
  });

  it('ignores the private section of the list, so a github.io site falls back to github.io', () => {
    expect(registrableDomain('acme.github.io')).toBe('github.io');
  });
});
