// Which entity a file of records holds, judged from its first lines: for a hint when an import rejects it.
import { ENTITIES, type Entity } from '../vocabulary/entities.js';
import { isBlank, LineSplitter, openNdjson } from './lines.js';
import { Invalid, prepareLine } from './prepare.js';

/** Non-blank lines read from the start of the file: enough to tell, few enough to cost nothing. */
const SAMPLE_LINES = 100;

/** The share of the sample an entity must accept to be named. */
const ACCEPTED_SHARE = 0.9;

/** The first `count` non-blank lines of an NDJSON file (plain or gzip), trimmed. */
async function firstLines(file: string, count: number): Promise<string[]> {
  const lines: string[] = [];
  const splitter = new LineSplitter((buffer, start, end) => {
    if (lines.length < count && !isBlank(buffer, start, end)) {
      lines.push(buffer.toString('utf8', start, end).trim());
    }
  });
  const source = await openNdjson(file);
  try {
    for await (const chunk of source.chunks()) {
      splitter.push(chunk);
      if (lines.length >= count) return lines;
    }
  } catch {
    // A file that cannot be read to its end: judge by the lines read before.
  }
  splitter.end();
  return lines;
}

/**
 * The entity whose schema accepts nearly every one of the file's first lines, when exactly one does;
 * undefined when none does (not records at all) or the file cannot be read.
 * @example await likelyEntity('people.ndjson') // 'people'
 */
export async function likelyEntity(file: string): Promise<Entity | undefined> {
  const lines = await firstLines(file, SAMPLE_LINES).catch(() => []);
  if (lines.length === 0) return undefined;
  const accepting = ENTITIES.filter((entity) => {
    const accepted = lines.filter((line) => !(prepareLine(entity, line) instanceof Invalid)).length;
    return accepted >= ACCEPTED_SHARE * lines.length;
  });
  return accepting.length === 1 ? accepting[0] : undefined;
}
