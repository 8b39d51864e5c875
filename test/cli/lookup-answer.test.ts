import { describe, expect, it } from 'vitest';
import {
  LOOKUP_EXIT,
  lookupExitCode,
  renderLookup,
  repeatable,
  unknownParams,
} from '../../src/cli/lookup-answer.js';

const problem = (status: number, code: string, more = {}) =>
  JSON.stringify({
    type: 'x',
    title: 't',
    status,
    detail: `detail ${status}`,
    code,
    request_id: 'r',
    ...more,
  });

describe('the exit code of a lookup', () => {
  it.each([
    [200, '{"id":"fp1"}', LOOKUP_EXIT.found],
    [400, problem(400, 'invalid_parameter'), LOOKUP_EXIT.invalid],
    [415, problem(415, 'unsupported_media_type'), LOOKUP_EXIT.invalid],
    [404, problem(404, 'not_found'), LOOKUP_EXIT.notFound],
    [409, problem(409, 'ambiguous_match'), LOOKUP_EXIT.ambiguous],
    [401, problem(401, 'unauthorized'), LOOKUP_EXIT.refused],
    [402, problem(402, 'quota_exceeded'), LOOKUP_EXIT.refused],
    [403, problem(403, 'forbidden'), LOOKUP_EXIT.refused],
    [429, problem(429, 'rate_limited'), LOOKUP_EXIT.refused],
    [503, problem(503, 'unavailable'), LOOKUP_EXIT.failed],
    [404, '<html>Not Found</html>', LOOKUP_EXIT.failed],
    [502, 'Bad gateway', LOOKUP_EXIT.failed],
  ])('is set by the status %i when the service answered it', (status, body, code) => {
    expect(lookupExitCode({ status, body })).toBe(code);
  });
});

describe('what a lookup prints', () => {
  it('prints the body as served with --json, whatever the status', () => {
    expect(
      renderLookup({ status: 200, body: '{"id":"fp1","n":1.50}' }, true, 'enrich lookup people'),
    ).toEqual({
      stdout: '{"id":"fp1","n":1.50}\n',
      stderr: '',
    });
    expect(renderLookup({ status: 404, body: problem(404, 'not_found') }, true, 'x').stdout).toBe(
      `${problem(404, 'not_found')}\n`,
    );
  });

  it('says what the server answered when it is no problem document, without its control characters', () => {
    const printed = renderLookup({ status: 502, body: '<h1>Bad\u001b[2J gateway</h1>' }, false, 'x');
    expect(printed).toEqual({
      stdout: '',
      stderr: 'enrich: the server answered 502: <h1>Bad\\x1b[2J gateway</h1>\n',
    });
  });

  it('points at the options when a parameter is unknown or missing', () => {
    const printed = renderLookup(
      { status: 400, body: problem(400, 'unknown_parameter') },
      false,
      'enrich lookup people',
    );
    expect(printed.stderr).toBe(
      'enrich: detail 400\nRun "enrich lookup people --help" for its options (--ln-slug for ln_slug, and so on).\n',
    );
  });
});

describe('the parameters of options Commander does not know', () => {
  it('reads --name value, --name=value and a flag without a value, repeated ones as a list', () => {
    expect(
      unknownParams(['--shoe-size', '12', '--fqdn=acme.com.au', '--api-key', '--x', 'a', '--x', 'b']),
    ).toEqual({
      shoe_size: '12',
      fqdn: 'acme.com.au',
      api_key: '',
      x: ['a', 'b'],
    });
  });

  it('refuses a word that is not an option: identifiers are given as options', () => {
    expect(() => unknownParams(['jane@acme.com.au'])).toThrow(/"jane@acme\.com\.au" is not an option/);
  });

  it('makes a list of a repeated option’s values', () => {
    expect(repeatable('b', repeatable('a', undefined))).toEqual(['a', 'b']);
    expect(repeatable('c', ['a', 'b'])).toEqual(['a', 'b', 'c']);
  });
});
