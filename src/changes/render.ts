// An event of the log as the feed lists it and a webhook delivers it (contract §8), and the feed's cursor.
import type { ChangeEvent, LoggedEvent } from './events.js';

/** The stable id of the event at `seq`: `evt_` and the number in 16 digits, so ids sort as they commit. */
export function eventId(seq: number): string {
  return `evt_${String(seq).padStart(16, '0')}`;
}

/** The event's sequence number, or undefined when `id` is not an event id. */
export function eventSeq(id: string): number | undefined {
  const match = /^evt_(\d{16})$/.exec(id);
  return match ? Number(match[1]) : undefined;
}

/** The event exactly as listed and delivered: id, type, timestamp, data, in that order. */
export function renderEvent(event: LoggedEvent): ChangeEvent {
  return { id: eventId(event.seq), type: event.type, timestamp: event.at, data: event.data } as ChangeEvent;
}

/** The opaque cursor that resumes after `seq`. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`v1:${seq}`).toString('base64url');
}

/** The sequence number a cursor resumes after, or undefined when it is not one of ours, as we wrote it. */
export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return undefined;
  const match = /^v1:(0|[1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const seq = match ? Number(match[1]) : undefined;
  return seq !== undefined && encodeCursor(seq) === cursor ? seq : undefined;
}
