// Reading an NDJSON file line by line, as cheaply as Node allows: the basis of the floor and of key sampling.
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';

const CHUNK = 1024 * 1024;

/** Calls `onLine` with each non-empty line of a UTF-8 file and its 0-based index; returns the line count. */
/** True when the file starts with gzip's magic bytes. */
function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const magic = Buffer.alloc(2);
    return readSync(fd, magic, 0, 2, 0) === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** A file's text, gunzipped when it is gzip. */
function textOf(file: string): AsyncIterable<string> {
  const raw = createReadStream(file, { highWaterMark: CHUNK });
  const bytes = isGzip(file) ? raw.pipe(createGunzip({ chunkSize: CHUNK })) : raw;
  return bytes.setEncoding('utf8') as AsyncIterable<string>;
}

export async function forEachLine(file: string, onLine: (line: string, index: number) => void) {
  let rest = '';
  let index = 0;
  for await (const chunk of textOf(file)) {
    const text = rest + (chunk as string);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      if (end > start) onLine(text.slice(start, end), index++);
      start = end + 1;
    }
    rest = text.slice(start);
  }
  if (rest.length > 0) onLine(rest, index++);
  return index;
}

export interface Floor {
  lines: number;
  seconds: number;
  perSecond: number;
}

/** The floor under any import: read the file and JSON.parse every line, nothing else. */
export async function readAndParse(file: string): Promise<Floor> {
  const started = performance.now();
  let parsed = 0;
  const lines = await forEachLine(file, (line) => {
    if (JSON.parse(line) !== null) parsed++;
  });
  const seconds = (performance.now() - started) / 1000;
  if (parsed !== lines) throw new Error(`${file}: ${lines - parsed} lines parsed to null`);
  return { lines, seconds, perSecond: lines / seconds };
}
