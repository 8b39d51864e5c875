// Classifies one record write into the change events it makes (contract §8, notes/events.md), pure and fast.
import { derivedPersonEvent } from './derive.js';
import type { ClassifiedEvent, Entity, RemovalReason } from './events.js';

/** A stored or incoming record body: its JSON text, as a string or as UTF-8 bytes. */
export type Body = string | Uint8Array;

/** What a write did to one record; `unchanged` appends nothing and rewrites nothing. */
export type RecordChange = 'created' | 'updated' | 'removed' | 'unchanged';

export interface RecordWrite {
  entity: Entity;
  /** The record's id (the store's key; the body's `id` is not read). */
  id: string;
  /** The stored body before the write; null or absent when there was none. */
  before?: Body | null;
  /** The body the write leaves; null or absent when the write removes the record. */
  after?: Body | null;
  /** Why a removal happened; default `snapshot`. Ignored unless the record is removed. */
  reason?: RemovalReason;
}

export interface Classification {
  change: RecordChange;
  /** The record's created/updated/removed event, then its derived event if any; empty when unchanged. */
  events: ClassifiedEvent[];
  /** For an update: the changed top-level fields (the `fields` of its updated event). */
  fields?: string[];
}

const unchanged = (): Classification => ({ change: 'unchanged', events: [] });

const decoder = new TextDecoder();
const asText = (body: Body) => (typeof body === 'string' ? body : decoder.decode(body));

function sameBytes(a: Body, b: Body): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (typeof a !== 'string' && typeof b !== 'string')
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
  return asText(a) === asText(b);
}

function parseObject(body: Body, side: string): Record<string, unknown> {
  const value: unknown = JSON.parse(asText(body));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`the ${side} body is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * The top-level fields whose value's JSON text differs: in the new record's key order, then the removed
 * ones in the old record's order. Re-serialising each value makes whitespace between tokens irrelevant.
 */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const fields: string[] = [];
  for (const key of Object.keys(after)) {
    if (!Object.hasOwn(before, key) || JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
      fields.push(key);
    }
  }
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) fields.push(key);
  return fields;
}

const PREFIX = { people: 'person', companies: 'company' } as const;

/**
 * Classifies a write of one record. Equal bytes are unchanged without parsing; a creation or a removal is
 * classified without parsing either; only an update whose bytes differ parses both bodies.
 * @example classifyChange({ entity: 'people', id: 'fp1', before: null, after: '{"id":"fp1"}' })
 *   // { change: 'created', events: [{ type: 'person.created', data: { person_id: 'fp1' } }] }
 */
export function classifyChange(write: RecordWrite): Classification {
  const { entity, id, before, after } = write;
  const person = entity === 'people';
  const prefix = PREFIX[entity];
  if (before == null && after == null) return unchanged();
  if (before == null) {
    const data = person ? { person_id: id } : { company_id: id };
    return { change: 'created', events: [{ type: `${prefix}.created`, data } as ClassifiedEvent] };
  }
  const reason = write.reason ?? 'snapshot';
  if (after == null) {
    const data = person ? { person_id: id, reason } : { company_id: id, reason };
    return { change: 'removed', events: [{ type: `${prefix}.removed`, data } as ClassifiedEvent] };
  }
  if (sameBytes(before, after)) return unchanged();
  const old = parseObject(before, 'stored');
  const now = parseObject(after, 'new');
  const fields = changedFields(old, now);
  if (fields.length === 0) return unchanged();
  const updated = (
    person
      ? { type: 'person.updated', data: { person_id: id, fields } }
      : { type: 'company.updated', data: { company_id: id, fields } }
  ) as ClassifiedEvent;
  const derived = person ? derivedPersonEvent(id, old, now, fields) : undefined;
  return { change: 'updated', events: derived ? [updated, derived] : [updated], fields };
}
