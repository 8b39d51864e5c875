import { describe, expect, it } from 'vitest';
import { classifyChange } from '../../src/changes/index.js';

const job = (company: string | null, position: string | null, seniority: string | null) => ({
  current_company: company === null ? null : { id: company, name: `${company} Pty Ltd` },
  position,
  seniority,
});
const person = (fields: object) => JSON.stringify({ id: 'fp1', name: 'Jo Bloggs', ...fields });
const update = (before: object, after: object) =>
  classifyChange({ entity: 'people', id: 'fp1', before: person(before), after: person(after) });

describe('classifying a write', () => {
  it('finds a record whose bytes are equal unchanged', () => {
    const body = person(job('f1', 'Engineer', 'Other'));
    expect(classifyChange({ entity: 'people', id: 'fp1', before: body, after: body })).toEqual({
      change: 'unchanged',
      events: [],
    });
  });

  it('finds a record unchanged when only whitespace or top-level key order differ', () => {
    const before = '{"id":"c1","name":"Acme","tags":["a","b"]}';
    const after = '{ "tags" : [ "a", "b" ],\n "name": "Acme", "id": "c1" }';
    expect(classifyChange({ entity: 'companies', id: 'c1', before, after }).change).toBe('unchanged');
  });

  it('counts a key order change inside a value as a change of that field', () => {
    const before = '{"id":"c1","social_media":{"a":1,"b":2}}';
    const after = '{"id":"c1","social_media":{"b":2,"a":1}}';
    expect(classifyChange({ entity: 'companies', id: 'c1', before, after }).events).toEqual([
      { type: 'company.updated', data: { company_id: 'c1', fields: ['social_media'] } },
    ]);
  });

  it('reads bodies given as bytes, alone or beside text', () => {
    const before = Buffer.from('{"id":"c1","name":"Acme"}');
    const after = new TextEncoder().encode('{"id":"c1","name":"Acme Group"}');
    expect(classifyChange({ entity: 'companies', id: 'c1', before, after: Buffer.from(before) }).change).toBe(
      'unchanged',
    );
    expect(classifyChange({ entity: 'companies', id: 'c1', before, after }).fields).toEqual(['name']);
    expect(classifyChange({ entity: 'companies', id: 'c1', before: before.toString(), after }).change).toBe(
      'updated',
    );
  });

  it('gives a created event for a record that was not there, without reading its body', () => {
    expect(classifyChange({ entity: 'people', id: 'fp9', after: 'not even JSON' })).toEqual({
      change: 'created',
      events: [{ type: 'person.created', data: { person_id: 'fp9' } }],
    });
    expect(classifyChange({ entity: 'companies', id: 'f9', before: null, after: '{}' }).events).toEqual([
      { type: 'company.created', data: { company_id: 'f9' } },
    ]);
  });

  it('gives a removed event with its reason, a snapshot unless told', () => {
    expect(classifyChange({ entity: 'people', id: 'fp9', before: person({}) }).events).toEqual([
      { type: 'person.removed', data: { person_id: 'fp9', reason: 'snapshot' } },
    ]);
    const suppressed = classifyChange({ entity: 'companies', id: 'f9', before: '{}', reason: 'suppressed' });
    expect(suppressed).toEqual({
      change: 'removed',
      events: [{ type: 'company.removed', data: { company_id: 'f9', reason: 'suppressed' } }],
    });
  });

  it("lists changed fields in the new record's order, then the removed ones in the old record's order", () => {
    const before = '{"id":"c1","a":1,"gone1":true,"b":2,"gone2":null,"c":3}';
    const after = '{"id":"c1","c":4,"new":0,"b":2,"a":[1]}';
    const result = classifyChange({ entity: 'companies', id: 'c1', before, after });
    expect(result.fields).toEqual(['c', 'new', 'a', 'gone1', 'gone2']);
    expect(result.events[0]).toEqual({
      type: 'company.updated',
      data: { company_id: 'c1', fields: ['c', 'new', 'a', 'gone1', 'gone2'] },
    });
  });

  it('refuses a body that is not a JSON object', () => {
    expect(() => classifyChange({ entity: 'people', id: 'fp1', before: '[1]', after: '{}' })).toThrow(
      /stored body is not a JSON object/,
    );
  });
});

describe('a job change', () => {
  it('is a new company when the employer id differs, with both jobs', () => {
    const result = update(
      job('f1', 'Engineer', 'Other'),
      job('f2', 'Head of Sales', 'VP/Director / Head of'),
    );
    expect(result.events).toEqual([
      {
        type: 'person.updated',
        data: { person_id: 'fp1', fields: ['current_company', 'position', 'seniority'] },
      },
      {
        type: 'person.job_changed',
        data: {
          person_id: 'fp1',
          change: 'new_company',
          previous: {
            company_id: 'f1',
            company_name: 'f1 Pty Ltd',
            position: 'Engineer',
            seniority: 'Other',
          },
          current: {
            company_id: 'f2',
            company_name: 'f2 Pty Ltd',
            position: 'Head of Sales',
            seniority: 'VP/Director / Head of',
          },
        },
      },
    ]);
  });

  it('is a departure when the employer is gone, and joined when one appears', () => {
    const departure = update(job('f1', 'Engineer', 'Other'), job(null, null, 'Other')).events[1];
    expect(departure).toEqual({
      type: 'person.job_changed',
      data: {
        person_id: 'fp1',
        change: 'departure',
        previous: { company_id: 'f1', company_name: 'f1 Pty Ltd', position: 'Engineer', seniority: 'Other' },
        current: null,
      },
    });
    const joined = update({ position: 'Chef' }, job('f3', 'Chef', null)).events[1];
    expect(joined).toEqual({
      type: 'person.job_changed',
      data: {
        person_id: 'fp1',
        change: 'joined',
        previous: null,
        current: { company_id: 'f3', company_name: 'f3 Pty Ltd', position: 'Chef', seniority: null },
      },
    });
  });

  it('knows the employer by name when it has no id, and an empty company as none', () => {
    const byName = (name: string) => ({ current_company: { name }, position: 'Chef' });
    expect(update(byName('Cafe One'), byName('Cafe Two')).events[1]).toMatchObject({
      data: { change: 'new_company', previous: { company_id: null, company_name: 'Cafe One' } },
    });
    const empty = { current_company: { id: '', name: '' }, position: 'Chef' };
    expect(update(empty, byName('Cafe Two')).events[1]).toMatchObject({ data: { change: 'joined' } });
  });

  it('is not derived when the same company is renamed', () => {
    const before = { current_company: { id: 'f1', name: 'Old Name' }, position: 'Chef' };
    const after = { current_company: { id: 'f1', name: 'New Name' }, position: 'Chef' };
    expect(update(before, after).events).toEqual([
      { type: 'person.updated', data: { person_id: 'fp1', fields: ['current_company'] } },
    ]);
  });

  it('is never derived for a created or removed person, nor for a company', () => {
    expect(
      classifyChange({ entity: 'people', id: 'fp1', after: person(job('f1', 'A', 'Other')) }).events,
    ).toHaveLength(1);
    expect(
      classifyChange({ entity: 'people', id: 'fp1', before: person(job('f1', 'A', 'Other')) }).events,
    ).toHaveLength(1);
    const company = (id: string) => JSON.stringify({ id: 'c1', current_company: { id } });
    expect(
      classifyChange({ entity: 'companies', id: 'c1', before: company('a'), after: company('b') }).events,
    ).toHaveLength(1);
  });
});

describe('a title change', () => {
  it('is a promotion when seniority rises at the same company', () => {
    const result = update(
      job('f1', 'Sales Manager', 'Manager'),
      job('f1', 'Head of Sales', 'VP/Director / Head of'),
    );
    expect(result.events[1]).toEqual({
      type: 'person.title_changed',
      data: {
        person_id: 'fp1',
        company_id: 'f1',
        previous: { position: 'Sales Manager', seniority: 'Manager' },
        current: { position: 'Head of Sales', seniority: 'VP/Director / Head of' },
        promotion: true,
      },
    });
  });

  it('is no promotion sideways, downwards, or from or to a seniority off the ladder', () => {
    const promotion = (from: string | null, to: string | null) =>
      update(job('f1', 'A', from), job('f1', 'B', to)).events[1]?.data;
    expect(promotion('Manager', 'Manager')).toMatchObject({ promotion: false });
    expect(promotion('C-Suite / Partner', 'Manager')).toMatchObject({ promotion: false });
    expect(promotion('No Data Available', 'Manager')).toMatchObject({ promotion: false });
    expect(promotion('Other', 'Chief Wizard')).toMatchObject({ promotion: false });
    expect(promotion(null, 'Owner / Founder')).toMatchObject({ promotion: false });
    expect(promotion('Owner / Founder', 'Board Member / Company Director')).toMatchObject({
      promotion: true,
    });
  });

  it('is not derived when position and seniority read the same once absent is taken as null', () => {
    const before = { current_company: { id: 'f1' } };
    const after = { current_company: { id: 'f1' }, position: null };
    expect(update(before, after).events).toEqual([
      { type: 'person.updated', data: { person_id: 'fp1', fields: ['position'] } },
    ]);
  });

  it('is not derived for someone without an employer on either side', () => {
    expect(update(job(null, 'A', 'Other'), job(null, 'B', 'Manager')).events).toHaveLength(1);
  });
});
