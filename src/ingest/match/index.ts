// `enrich match`, the engine: open a list, map its columns, match its rows locally or remotely, write it back.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { type FieldTree, projectRecord } from '../../lookup/fields.js';
import { COMPANY_LOOKUP, type LookupOperation, PEOPLE_LOOKUP } from '../../lookup/operations.js';
import type { Entity } from '../../vocabulary/entities.js';
import { fileKind } from '../file-kind.js';
import { openCsvReader } from './csv-reader.js';
import { CsvWriter, type ListWriter } from './csv-writer.js';
import { detectShape, type ListShape } from './detect.js';
import { type ListInput, openListInput, peekFirstLine } from './input.js';
import { ListError, type ListRow, type RowParams } from './list.js';
import { type ColumnOverride, type ColumnUse, MemberMapping, rowParams } from './mapping.js';
import { openNdjsonReader } from './ndjson-reader.js';
import { NdjsonWriter } from './ndjson-writer.js';
import type { ListReader } from './reader.js';

export { localResolver } from './local.js';
export { mapColumns, parseOverride, unusedHeaders } from './mapping.js';

/**
 * How rows give their parameters: a CSV row by the mapping of its header; an NDJSON row by its own members'
 * names, mapped the same way (objects may differ in the members they carry).
 */
export function paramsOfRows(
  shape: ListShape,
  uses: readonly ColumnUse[],
  operation: LookupOperation,
  overrides: readonly ColumnOverride[],
): (row: ListRow) => RowParams {
  if (shape.format === 'csv') return (row) => rowParams(uses, row);
  const members = new MemberMapping(operation, overrides);
  return (row) => members.params(row);
}
export { matchList } from './match.js';
export { remoteResolver } from './remote.js';

export const operationOf = (entity: Entity): LookupOperation =>
  (entity === 'people' ? PEOPLE_LOOKUP : COMPANY_LOOKUP) as LookupOperation;

export interface OpenList {
  input: ListInput;
  shape: ListShape;
  /** Its columns read already (the CSV header, or the first NDJSON object). */
  reader: ListReader;
  /** Closes the file, read to its end or not. */
  close(): Promise<void>;
}

/** Opens a list: a file or `-`, gzip or not, CSV or NDJSON as its first line says. */
export async function openList(path: string): Promise<OpenList> {
  const input = await openListInput(path);
  const raw = input.chunks();
  const close = async () => {
    await raw.return(undefined);
  };
  try {
    const { firstLine, head, chunks } = await peekFirstLine(raw);
    // Never echoed: a header row of binary bytes would be printed to the terminal as headers found.
    const kind = fileKind(head);
    if (kind.kind === 'binary')
      throw new ListError(`the list is not text (${kind.what ?? 'binary data'}): give CSV or NDJSON`);
    const shape = detectShape(firstLine);
    const reader =
      shape.format === 'csv' ? await openCsvReader(chunks, shape.delimiter) : await openNdjsonReader(chunks);
    return { input, shape, reader, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The writer of a list's output: CSV for CSV (same delimiter, line ending and BOM; cells that would run as
 * formulas neutralised unless `formulaGuard` is false), NDJSON for NDJSON. A list of people gets the
 * likelihood of matches by name.
 */
export function listWriter(
  shape: ListShape,
  columns: readonly string[],
  selection: { paths: readonly string[]; tree: FieldTree } | undefined,
  { entity, formulaGuard = true }: { entity: Entity; formulaGuard?: boolean },
): ListWriter {
  const likelihood = entity === 'people';
  if (shape.format === 'csv')
    return new CsvWriter(columns, shape, selection?.paths ?? [], { likelihood, formulaGuard });
  const tree = selection?.tree;
  return new NdjsonWriter((record) => {
    if ('value' in record) return JSON.stringify(record.value); // a server projects what it sends
    return tree ? projectRecord(record.json, tree) : record.json.toString();
  }, likelihood);
}

/** Where a list's output goes, opened at its first write: a refused list leaves no file and no header. */
export interface ListOutput {
  open(): Promise<Writable>;
  /** Ends the output, if it was opened. */
  close(): Promise<void>;
}

/** The output to a file, created at the first write, or to stdout. */
export function listOutput(path: string | undefined): ListOutput {
  if (path === undefined) {
    return {
      async open() {
        // A closed pipe (`| head`) fails the next write instead of the process.
        process.stdout.on('error', () => {});
        return process.stdout;
      },
      close: async () => {},
    };
  }
  let stream: Writable | undefined;
  return {
    async open() {
      stream = createWriteStream(path);
      await once(stream, 'open');
      return stream;
    },
    async close() {
      if (stream === undefined) return;
      stream.end();
      await finished(stream);
    },
  };
}
