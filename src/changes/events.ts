// The change events of contract §8: their types and data, as the feed lists them and webhooks deliver them.
import type { Entity } from '../vocabulary/entities.js';

export type { Entity };

/** Why a record left the store: a snapshot refresh, `enrich delete`, or a suppression. */
export type RemovalReason = 'snapshot' | 'deleted' | 'suppressed';

/** A person's job as a job change reports it, each member null when the record lacks it. */
export interface Job {
  company_id: string | null;
  company_name: string | null;
  position: string | null;
  seniority: string | null;
}

/** A person's title as a title change reports it. */
export interface Title {
  position: string | null;
  seniority: string | null;
}

/** Each event type's `data`: exactly these members, in this order (notes/events.md). */
export interface EventData {
  'person.created': { person_id: string };
  'person.updated': { person_id: string; fields: string[] };
  'person.removed': { person_id: string; reason: RemovalReason };
  'company.created': { company_id: string };
  'company.updated': { company_id: string; fields: string[] };
  'company.removed': { company_id: string; reason: RemovalReason };
  'person.job_changed': {
    person_id: string;
    change: 'new_company' | 'departure' | 'joined';
    previous: Job | null;
    current: Job | null;
  };
  'person.title_changed': {
    person_id: string;
    company_id: string | null;
    previous: Title;
    current: Title;
    promotion: boolean;
  };
}

export type ChangeEventType = keyof EventData;

export const CHANGE_EVENT_TYPES: readonly ChangeEventType[] = [
  'person.created',
  'person.updated',
  'person.removed',
  'person.job_changed',
  'person.title_changed',
  'company.created',
  'company.updated',
  'company.removed',
];

/** An event as a write produces it, before the store gives it an id and a commit time. */
export type ClassifiedEvent = { [T in ChangeEventType]: { type: T; data: EventData[T] } }[ChangeEventType];

/** An event as the feed lists it (contract §8): `id` is stable, `timestamp` the commit time (UTC, ms). */
export type ChangeEvent = ClassifiedEvent & { id: string; timestamp: string };

/** An event as the change log holds it: its place in commit order, its commit time, its type and data. */
export type LoggedEvent = ClassifiedEvent & {
  /** Position in commit order: increasing, never reused, with gaps where entries were pruned. */
  seq: number;
  /** Commit time, ISO-8601 UTC with milliseconds. */
  at: string;
};
