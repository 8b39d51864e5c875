// Suppressed identifiers are kept only as SHA-256 hashes of `kind:normalised value` (and `id:<record id>`).
import { hash } from 'node:crypto';
import type { RecordToStore } from '../store/records.js';
import type { IdentifierKind } from '../vocabulary/entities.js';

/**
 * The stored form of a suppressed identifier. Values must be normalised exactly as the identifier
 * index holds them (src/identifiers), so that every spelling of one identifier gives one hash.
 * @example suppressionHash('work_email', 'jane@acme.com.au')
 */
export const suppressionHash = (kind: IdentifierKind | 'id', value: string) =>
  hash('sha256', `${kind}:${value}`, 'hex');

/** The hashes of a record's id and of every identifier it carries. */
export function recordHashes(record: Pick<RecordToStore, 'id' | 'identifiers'>): string[] {
  return [
    suppressionHash('id', record.id),
    ...record.identifiers.map(({ kind, value }) => suppressionHash(kind, value)),
  ];
}

/** Tells whether an incoming record carries a suppressed id or identifier. */
export class SuppressionFilter {
  constructor(private readonly hashes: ReadonlySet<string>) {}

  /** Nothing to hash when nothing is suppressed: the common case costs one comparison per record. */
  isSuppressed(record: Pick<RecordToStore, 'id' | 'identifiers'>): boolean {
    if (this.hashes.size === 0) return false;
    if (this.hashes.has(suppressionHash('id', record.id))) return true;
    return record.identifiers.some(({ kind, value }) => this.hashes.has(suppressionHash(kind, value)));
  }
}
