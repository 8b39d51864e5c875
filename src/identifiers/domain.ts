// Host names from `website` and `fqdn` as people type them, and their registrable domain by the Public Suffix List.
import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';
import { accept, type Normalised, reject, valueOrThrow } from './normalised.js';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
const HOST_END = /[/?#\\]/;
const WHITESPACE = /\s/;
const NON_ASCII = /[\u0080-\uffff]/;
/** LDH labels of 1 to 63 characters, at least two of them, 253 characters in all. */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const NUMERIC_TLD = /\.[0-9]+$/;

const NO_HOST = 'no host name (expected a domain such as acme.com.au)';

/** Drops scheme, userinfo, port, path, query, fragment and a trailing dot. */
function bareHost(input: string): string {
  let rest = input.trim().toLowerCase();
  if (rest.startsWith('https://')) rest = rest.slice(8);
  else if (rest.startsWith('http://')) rest = rest.slice(7);
  else if (rest.startsWith('//')) rest = rest.slice(2);
  else {
    const scheme = SCHEME.exec(rest);
    if (scheme) rest = rest.slice(scheme[0].length);
  }
  const end = rest.search(HOST_END);
  let host = end < 0 ? rest : rest.slice(0, end);
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  if (host.startsWith('[')) return host; // an IPv6 literal, refused by the caller
  const port = host.indexOf(':');
  if (port >= 0) host = host.slice(0, port);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/**
 * True when `host` is a lowercase ASCII host name of at least two LDH labels.
 * @example isHostName('xn--bcher-kva.de') // true
 */
export function isHostName(host: string): boolean {
  return HOST_NAME.test(host);
}

/**
 * Like `normaliseHost`, but returns an outcome instead of throwing.
 * @example parseHost('https://www.Acme.com.au/about') // { ok: true, value: 'acme.com.au' }
 */
export function parseHost(input: string): Normalised {
  let host = bareHost(input);
  if (host === '' || WHITESPACE.test(host)) return reject(NO_HOST);
  if (NON_ASCII.test(host)) {
    host = domainToASCII(host);
    if (host === '') return reject(NO_HOST);
  }
  // Stripping every leading `www.` (but never down to one label) keeps normalising idempotent.
  while (host.startsWith('www.') && host.indexOf('.', 4) >= 0) host = host.slice(4);
  if (!isHostName(host)) {
    return reject(
      host.includes('.') || host.startsWith('[')
        ? NO_HOST
        : 'a single-label host name; give a domain such as acme.com.au',
    );
  }
  if (NUMERIC_TLD.test(host)) return reject('an IP address; give a domain name such as acme.com.au');
  return accept(host);
}

/**
 * Normalises a `website` or `fqdn` to a lowercase ASCII host: scheme, `www.`, port, path, query,
 * fragment, userinfo, trailing dot and case ignored, IDNs as punycode. No valid host name is a 400.
 * @example normaliseHost('HTTPS://www.Acme.com.au:443/about?x#y') // 'acme.com.au'
 */
export function normaliseHost(input: string): string {
  return valueOrThrow(parseHost(input));
}

/**
 * The registrable domain of a normalised host by the ICANN section of the Public Suffix List, or
 * null when it has none (a public suffix itself, say).
 * @example registrableDomain('shop.acme.com.au') // 'acme.com.au'
 */
export function registrableDomain(host: string): string | null {
  return getDomain(host, { allowPrivateDomains: false, extractHostname: false });
}
