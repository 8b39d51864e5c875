import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/identifiers/email.js';
import { emailSha256, parseEmailSha256 } from '../../src/identifiers/email-hash.js';
import { personIdentifiers } from '../../src/identifiers/record.js';

describe('hashed e-mail addresses', () => {
  it('are the lower-case hex SHA-256 of the address, as `printf %s ADDRESS | sha256sum` prints it', () => {
    expect(emailSha256('jane.citizen@acme.com.au')).toBe(
      '94b55c7229d687381c370f3b7c7a3ec3fa432bb1650f17287026c2962a2eee2d',
    );
    // UTF-8 bytes of a non-ASCII local part, as the shell hashes them.
    expect(emailSha256('zoë@example.com')).toBe(
      '5418899f7aabe5f45dd3350fe8edcf89e1763a9e64c85e529b1f68cbf5144767',
    );
  });

  it('are accepted in upper case and with surrounding spaces, and folded to lower case', () => {
    const hash = emailSha256('jane.citizen@acme.com.au');
    expect(parseEmailSha256(`  ${hash.toUpperCase()}\n`)).toEqual({ ok: true, value: hash });
  });

  it.each([
    ['too short', 'abc123'],
    ['too long', 'a'.repeat(65)],
    ['not hex', 'g'.repeat(64)],
    ['an address', 'jane.citizen@acme.com.au'],
    ['hex with a prefix', `0x${'a'.repeat(64)}`],
    ['sha256sum output', `${'a'.repeat(64)}  -`],
  ])('refuse %s, saying what is expected', (_, value) => {
    const outcome = parseEmailSha256(value);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reason).toMatch(/64 hex digits/);
  });

  it('index every address a person carries by the hash of its normalised form, however it was typed', () => {
    const local = fc.stringMatching(/^[a-zA-Z0-9._%+-]{1,20}$/);
    const domain = fc.constantFrom('acme.com.au', 'Example.COM', 'mail.co.nz');
    fc.assert(
      fc.property(local, domain, fc.constantFrom('', ' ', '\t'), (name, host, pad) => {
        const typed = `${pad}${name}@${host}${pad}`;
        const normalised = parseEmail(typed);
        fc.pre(normalised.ok);
        if (!normalised.ok) return;
        const identifiers = personIdentifiers({
          id: 'fp1',
          emails: { work: [{ value: typed }], personal: [{ value: typed }] },
        });
        const hash = emailSha256(normalised.value);
        expect(identifiers).toContainEqual({ kind: 'work_email_sha256', value: hash });
        expect(identifiers).toContainEqual({ kind: 'personal_email_sha256', value: hash });
      }),
    );
  });
});
