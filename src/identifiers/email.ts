// E-mail addresses as people type them: trimmed and case-folded, the domain in its ASCII form.
import { domainToASCII } from 'node:url';
import { isHostName } from './domain.js';
import { accept, type Normalised, reject, valueOrThrow } from './normalised.js';

const WHITESPACE = /\s/;
const NON_ASCII = /[\u0080-\uffff]/;
/** What a domain may hold before IDNA conversion, which would silently cut it at `/`, `?` or `#`. */
const DOMAIN_CHARS = /^[a-z0-9.\-\u0080-\uffff]+$/;
const NOT_EMAIL = 'not an e-mail address (expected name@domain.tld)';

/**
 * Like `normaliseEmail`, but returns an outcome instead of throwing.
 * @example parseEmail('Jane@Acme.com.au') // { ok: true, value: 'jane@acme.com.au' }
 */
export function parseEmail(input: string): Normalised {
  const email = input.trim().toLowerCase();
  const at = email.indexOf('@');
  if (at <= 0 || at !== email.lastIndexOf('@') || WHITESPACE.test(email)) return reject(NOT_EMAIL);
  let local = email.slice(0, at);
  let domain = email.slice(at + 1);
  if (NON_ASCII.test(local)) local = local.normalize('NFC');
  if (!DOMAIN_CHARS.test(domain)) return reject(NOT_EMAIL);
  // An internationalised domain is matched in its punycode form, however it was typed.
  if (NON_ASCII.test(domain)) domain = domainToASCII(domain);
  if (!isHostName(domain)) return reject(NOT_EMAIL);
  return accept(`${local}@${domain}`);
}

/**
 * Normalises an e-mail address: trimmed and lowercased, one `@`, a non-empty local part and a
 * host name of two or more labels (IDNs as punycode); anything else is a 400.
 * @example normaliseEmail('  Jane.Doe@ACME.com.au ') // 'jane.doe@acme.com.au'
 */
export function normaliseEmail(input: string): string {
  return valueOrThrow(parseEmail(input));
}
