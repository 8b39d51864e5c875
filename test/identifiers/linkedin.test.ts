import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkedinSlugFromUrl, normaliseLinkedinSlug } from '../../src/identifiers/linkedin.js';
import { thrownProblem } from './thrown-problem.js';
import { assertIdempotent } from './typed-input.js';

describe('linkedinSlugFromUrl', () => {
  it.each([
    'https://www.linkedin.com/in/Jane-Doe/',
    'linkedin.com/in/jane-doe',
    'www.linkedin.com/in/jane-doe',
    'http://au.linkedin.com/in/jane-doe?trk=x#y',
    'https://nz.linkedin.com/in/jane-doe/',
    'https://mobile.linkedin.com/in/jane-doe',
    'LINKEDIN.COM/IN/JANE-DOE',
    '  https://www.linkedin.com/in/jane-doe  ',
    'https://www.linkedin.com./in/jane-doe',
    'https://www.linkedin.com:443/in/jane-doe',
    '//www.linkedin.com/in/jane-doe',
    'https://www.linkedin.com//in//jane-doe//',
    'https://www.linkedin.com/in/jane-doe/details/experience',
    'https://www.linkedin.com/pub/jane-doe',
    'https://www.linkedin.com/in/jane%2Ddoe',
  ])('reads %s as the profile jane-doe', (url) => {
    expect(linkedinSlugFromUrl(url, 'person')).toBe('jane-doe');
  });

  it.each([
    'https://www.linkedin.com/in/Jos%C3%A9-Doe',
    'https://www.linkedin.com/in/jos%c3%a9-doe',
    'https://www.linkedin.com/in/José-Doe',
    'https://www.linkedin.com/in/JOSÉ-DOE',
    `https://www.linkedin.com/in/${'José-Doe'.normalize('NFD')}`,
    `https://www.linkedin.com/in/${encodeURIComponent('José-Doe'.normalize('NFD'))}`,
  ])('reads the encoded, raw and decomposed forms %s as one slug', (url) => {
    expect(linkedinSlugFromUrl(url, 'person')).toBe('josé-doe'.normalize('NFC'));
  });

  it('reads an old /pub/ URL as the /in/ slug it redirects to', () => {
    const url = 'https://sy.linkedin.com/pub/krzysztof-marzec/a7/576/b50?trk=biz_employee_pub';
    expect(linkedinSlugFromUrl(url, 'person')).toBe('krzysztof-marzec-b50576a7');
  });

  it.each([
    ['https://www.linkedin.com/company/Acme-Pty-Ltd/', 'acme-pty-ltd'],
    ['linkedin.com/company/acme-pty-ltd/about/?viewAsMember=true', 'acme-pty-ltd'],
    ['au.linkedin.com/school/UNSW', 'unsw'],
    ['https://www.linkedin.com/showcase/acme-cloud#x', 'acme-cloud'],
  ])('reads the company URL %s as %s', (url, slug) => {
    expect(linkedinSlugFromUrl(url, 'company')).toBe(slug);
  });

  it('refuses a company URL where a profile is expected, naming the expected form', () => {
    const problem = thrownProblem(() =>
      linkedinSlugFromUrl('https://www.linkedin.com/company/acme', 'person'),
    );
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toMatch(/company URL.*\/people expects a profile URL \(linkedin\.com\/in\//);
  });

  it('refuses a profile URL where a company is expected, naming the expected form', () => {
    const problem = thrownProblem(() => linkedinSlugFromUrl('linkedin.com/in/jane-doe', 'company'));
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toMatch(/profile URL.*\/company expects a company URL \(linkedin\.com\/company\//);
  });

  it.each([
    ['another host', 'https://example.com/in/jane-doe'],
    ['a look-alike host', 'https://linkedin.com.example.com/in/jane-doe'],
    ['a scheme other than http(s)', 'ftp://linkedin.com/in/jane-doe'],
    ['a page that is neither profile nor company', 'https://www.linkedin.com/feed/'],
    ['no slug', 'https://www.linkedin.com/in/'],
    ['no path at all', 'linkedin.com'],
    ['the public directory', 'https://www.linkedin.com/pub/dir/jane/doe'],
    ['malformed percent-encoding', 'https://www.linkedin.com/in/jane%E0%A4%A'],
    ['an encoded slash', 'https://www.linkedin.com/in/jane%2Fdoe'],
  ])('refuses %s with invalid_parameter and without echoing the value', (_, url) => {
    const problem = thrownProblem(() => linkedinSlugFromUrl(url, 'person'));
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).not.toContain('jane');
  });
});

describe('normaliseLinkedinSlug', () => {
  it.each(['jane-doe', 'Jane-Doe', ' jane-doe ', '/jane-doe/', 'JANE%2DDOE'])(
    'reads %s as jane-doe',
    (slug) => {
      expect(normaliseLinkedinSlug(slug)).toBe('jane-doe');
    },
  );

  it('reads percent-encoded and raw non-ASCII slugs alike', () => {
    expect(normaliseLinkedinSlug('Jos%C3%A9')).toBe(normaliseLinkedinSlug('José'));
  });

  it('tells a caller who sent a URL to use ln_url', () => {
    const problem = thrownProblem(() => normaliseLinkedinSlug('https://www.linkedin.com/in/jane-doe'));
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toContain('ln_url');
  });

  it.each([
    ['a slash', 'in/jane-doe'],
    ['whitespace', 'jane doe'],
    ['a query', 'jane-doe?trk=x'],
    ['a fragment', 'jane-doe#x'],
    ['malformed percent-encoding', 'jane%zz'],
    ['nothing but slashes', '//'],
  ])('refuses a slug holding %s', (_, slug) => {
    expect(thrownProblem(() => normaliseLinkedinSlug(slug)).code).toBe('invalid_parameter');
  });
});

// Letters whose upper case lowers back to themselves (not ß, ı or İ), so that random case is lossless.
const SLUG_CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789-', ...'éüñøåçжλ中ö'];
const slugArb = fc
  .array(fc.constantFrom(...SLUG_CHARS), { minLength: 1, maxLength: 30 })
  .map((chars) => chars.join('').normalize('NFC'));

const urlVariantArb = (slug: string) =>
  fc
    .record({
      scheme: fc.constantFrom('', 'http://', 'https://', 'HTTPS://', '//'),
      subdomain: fc.constantFrom('', 'www.', 'au.', 'nz.', 'uk.', 'mobile.', 'WWW.'),
      host: fc.constantFrom('linkedin.com', 'LinkedIn.com', 'LINKEDIN.COM'),
      section: fc.constantFrom('in', 'IN', 'In'),
      slug: fc.mixedCase(fc.constant(slug)),
      form: fc.constantFrom('raw', 'encoded', 'decomposed'),
      tail: fc.constantFrom('', '/', '/details/experience', '/?x=1'),
      query: fc.constantFrom('', '?trk=public_profile', '?a=b&c=d'),
      fragment: fc.constantFrom('', '#about', '#'),
    })
    .map((v) => {
      const s =
        v.form === 'encoded'
          ? encodeURIComponent(v.slug)
          : v.form === 'decomposed'
            ? v.slug.normalize('NFD')
            : v.slug;
      return `${v.scheme}${v.subdomain}${v.host}/${v.section}/${s}${v.tail}${v.query}${v.fragment}`;
    });

describe('LinkedIn properties', () => {
  it('reads every way of typing a profile URL as the same slug', () => {
    fc.assert(
      fc.property(
        slugArb.chain((slug) => fc.tuple(fc.constant(slug), urlVariantArb(slug))),
        ([slug, url]) => {
          expect(linkedinSlugFromUrl(url, 'person')).toBe(slug);
        },
      ),
    );
  });

  it('leaves any slug it accepts unchanged when normalised again', () => {
    assertIdempotent(normaliseLinkedinSlug);
  });

  it('leaves generated slugs unchanged when normalised again', () => {
    fc.assert(
      fc.property(slugArb, (slug) => {
        const once = normaliseLinkedinSlug(slug);
        expect(normaliseLinkedinSlug(once)).toBe(once);
        expect(linkedinSlugFromUrl(`linkedin.com/in/${once}`, 'person')).toBe(once);
      }),
    );
  });
});
