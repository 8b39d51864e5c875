import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors.js';
import { bodyParams } from '../../src/http/lookup-body.js';
import { PERSON_PARAMS } from '../../src/identifiers/params.js';

const problemOf = (input: unknown) => {
  const params = bodyParams(input, PERSON_PARAMS);
  if (!(params instanceof ProblemError)) throw new Error(`expected a problem, got ${JSON.stringify(params)}`);
  return params;
};

describe("a POST lookup's body as parameters", () => {
  it('gives the parameters a query string would: strings, and fields joined with commas', () => {
    expect(
      bodyParams({ work_email: 'a@b.co', fields: ['name', 'current_company.name'] }, PERSON_PARAMS),
    ).toEqual({
      work_email: 'a@b.co',
      fields: 'name,current_company.name',
    });
    expect(bodyParams({ id: 'fp1', fields: 'name' }, PERSON_PARAMS)).toEqual({ id: 'fp1', fields: 'name' });
    expect(bodyParams({ fields: [] }, PERSON_PARAMS)).toEqual({ fields: '' });
  });

  it('leaves a member the operation does not accept for the query check to name, whatever its value', () => {
    expect(bodyParams({ fqdn: 7, token: null }, PERSON_PARAMS)).toEqual({ fqdn: 7, token: null });
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'id=fp1', 42, true]) expect(problemOf(body).code).toBe('invalid_body');
  });

  it('refuses an identifier or fields that is not a string, naming it', () => {
    for (const [body, parameter] of [
      [{ id: 1 }, 'id'],
      [{ work_email: null }, 'work_email'],
      [{ personal_email_sha256: ['ab'] }, 'personal_email_sha256'],
      [{ fields: ['name', null] }, 'fields'],
      [{ fields: 3 }, 'fields'],
    ] as const) {
      expect(problemOf(body)).toMatchObject({ code: 'invalid_parameter', extensions: { parameter } });
    }
  });
});
