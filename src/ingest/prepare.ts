// One NDJSON line to a record ready to store, or the reason it is rejected (contract §2).
import { hash } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { companyIdentifiers, personIdentifiers } from '../identifiers/record.js';
import { clip, MAX_PATH_SHOWN } from '../lookup/bulk-request.js';
import { Company } from '../schemas/company.js';
import { locateSyntaxError, MAX_JSON_DEPTH, nestingBeyond } from '../schemas/json-text.js';
import { Person } from '../schemas/person.js';
import type { RecordToStore } from '../store/records.js';
import { companyFacts, personFacts } from '../store/search-facts.js';
import type { Entity, Identifier } from '../vocabulary/entities.js';
import { innermostError, pointerToJsonPath } from './json-path.js';

const checkers = { people: TypeCompiler.Compile(Person), companies: TypeCompiler.Compile(Company) };

const extractors: Record<Entity, (record: never) => Identifier[]> = {
  people: personIdentifiers,
  companies: companyIdentifiers,
};

/**
 * The largest record an import takes, in bytes of its line: records are a few kilobytes, and a line is
 * read whole into memory before it is checked.
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** Why a line longer than MAX_RECORD_BYTES is refused. */
export const TOO_LARGE = `The record is larger than 1 MiB (${MAX_RECORD_BYTES.toLocaleString('en')} bytes); a record holds at most that`;

/** Why a line was refused: a JSON path (`$` for the whole line) and a message. */
export class Invalid {
  constructor(
    readonly path: string,
    readonly message: string,
  ) {}
}

/** A strong validator derived from the exact body, so re-importing the same line keeps its etag. */
export const etagOf = (body: string) => `"${hash('sha1', body, 'base64url').slice(0, 22)}"`;

function validate(entity: Entity, value: unknown): Invalid | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return new Invalid('$', 'A record must be a JSON object');
  }
  const id = (value as { id?: unknown }).id;
  if (id === undefined || id === null) return new Invalid('$.id', 'id is required');
  const checker = checkers[entity];
  if (checker.Check(value)) return undefined;
  const first = checker.Errors(value).First();
  if (first === undefined) return new Invalid('$', 'Invalid record');
  const { pointer, message } = innermostError(first);
  return new Invalid(pointerToJsonPath(pointer, value), message);
}

/**
 * Parses, validates and indexes one line. `text` must already be trimmed; it becomes the stored
 * body exactly, so the record is served as it was given.
 */
export function prepareLine(entity: Entity, text: string): RecordToStore | Invalid {
  if (nestingBeyond(text, MAX_JSON_DEPTH) !== undefined) {
    // Served records are walked (a projection on `fields`): no record nests deeper than a request may.
    const at = locateSyntaxError(text, MAX_JSON_DEPTH);
    if (at?.tooDeep) {
      return new Invalid(
        clip(at.path, MAX_PATH_SHOWN),
        `Arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels; a record holds at most ${MAX_JSON_DEPTH}`,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return new Invalid('$', `Invalid JSON: ${(error as Error).message}`);
  }
  const invalid = validate(entity, value);
  if (invalid) return invalid;
  const record = value as { id: string };
  let identifiers: Identifier[];
  try {
    identifiers = extractors[entity](record as never);
  } catch (error) {
    return new Invalid('$', `Could not read identifiers: ${(error as Error).message}`);
  }
  const facts = entity === 'people' ? personFacts(record as never) : companyFacts(record as never);
  return { id: record.id, body: text, etag: etagOf(text), identifiers, facts };
}
