// The line `enrich changes` prints for each event: what happened, readable at a glance.
import { describe, expect, it } from 'vitest';
import { changeLine, describeChange } from '../../src/changes/describe.js';
import type { ChangeEvent } from '../../src/changes/events.js';

const at = { id: 'evt_0000000000000007', timestamp: '2026-11-25T10:00:00.000Z' };

describe('an event described in a line', () => {
  it('names the record and what changed of it', () => {
    const cases: [ChangeEvent, string][] = [
      [{ ...at, type: 'person.created', data: { person_id: 'fp1' } }, 'fp1'],
      [
        { ...at, type: 'company.updated', data: { company_id: 'f1', fields: ['name', 'website'] } },
        'f1 name,website',
      ],
      [{ ...at, type: 'person.removed', data: { person_id: 'fp1', reason: 'suppressed' } }, 'fp1 suppressed'],
      [
        {
          ...at,
          type: 'person.job_changed',
          data: {
            person_id: 'fp1',
            change: 'new_company',
            previous: { company_id: 'f1', company_name: 'Acme', position: 'Analyst', seniority: 'Other' },
            current: { company_id: 'f2', company_name: null, position: null, seniority: 'Manager' },
          },
        },
        'fp1 new_company: Analyst (Other) at Acme → ? (Manager) at f2',
      ],
      [
        {
          ...at,
          type: 'person.job_changed',
          data: {
            person_id: 'fp1',
            change: 'departure',
            previous: { company_id: 'f1', company_name: 'Acme', position: 'Analyst', seniority: 'Other' },
            current: null,
          },
        },
        'fp1 departure: Analyst (Other) at Acme → no company',
      ],
      [
        {
          ...at,
          type: 'person.title_changed',
          data: {
            person_id: 'fp1',
            company_id: 'f1',
            previous: { position: 'Analyst', seniority: 'Other' },
            current: { position: 'Lead', seniority: 'Manager' },
            promotion: true,
          },
        },
        'fp1 promotion: Analyst (Other) → Lead (Manager)',
      ],
    ];
    for (const [event, described] of cases) expect(describeChange(event)).toBe(described);
  });

  it('starts with the id, the commit time and the type, in columns', () => {
    expect(changeLine({ ...at, type: 'person.created', data: { person_id: 'fp1' } })).toBe(
      'evt_0000000000000007  2026-11-25T10:00:00.000Z  person.created        fp1',
    );
  });
});
