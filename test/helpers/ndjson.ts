// A client of the bulk stream for tests: writes NDJSON lines as the server takes them while reading the
// result lines as they come, over a real connection.
import { type ClientRequest, type IncomingHttpHeaders, request } from 'node:http';
import { recorder } from '../recording/record.js';

export interface StreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The result lines, parsed (when kept). */
  results: Array<Record<string, unknown>>;
  /** How many result lines arrived. */
  count: number;
  /** The raw body, when it was not NDJSON (a problem document). */
  body: string;
}

export interface StreamOptions {
  /** Called for each result line as it arrives; the request, to destroy it mid-stream. */
  onResult?: (result: Record<string, unknown>, count: number, request: ClientRequest) => void;
  /** Keep every parsed result (default true); false only counts them, for long streams. */
  keep?: boolean;
  contentType?: string;
}

/** Posts `lines` (each without its newline) to `url` as an NDJSON stream. Resolves when the response ends. */
export function postStream(
  url: string,
  authorization: string,
  lines: Iterable<string>,
  options: StreamOptions = {},
): Promise<StreamAnswer> {
  const { keep = true, contentType = 'application/x-ndjson' } = options;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { authorization, 'content-type': contentType },
    });
    const answer: StreamAnswer = { status: 0, headers: {}, results: [], count: 0, body: '' };
    const record = recorder('POST', url);
    const received: Buffer[] = [];
    req.on('error', reject);
    req.on('response', (res) => {
      answer.status = res.statusCode!;
      answer.headers = res.headers;
      if (record) res.on('data', (text: string) => received.push(Buffer.from(text)));
      const ended = () => {
        record?.(answer.status, answer.headers, Buffer.concat(received));
        resolve(answer);
      };
      const ndjson = String(res.headers['content-type']).startsWith('application/x-ndjson');
      let carry = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        if (!ndjson) {
          answer.body += text;
          return;
        }
        const parts = (carry + text).split('\n');
        carry = parts.pop()!;
        for (const part of parts) {
          const result = JSON.parse(part) as Record<string, unknown>;
          answer.count++;
          if (keep) answer.results.push(result);
          options.onResult?.(result, answer.count, req);
        }
      });
      res.on('end', ended);
      res.on('error', reject);
      res.on('aborted', ended);
    });
    const iterator = lines[Symbol.iterator]();
    // Lines go out a hundred to a write, as a file read in chunks would.
    const write = () => {
      while (!req.destroyed) {
        const chunk: string[] = [];
        let done = false;
        while (chunk.length < 100) {
          const next = iterator.next();
          if (next.done) {
            done = true;
            break;
          }
          chunk.push(`${next.value}\n`);
        }
        const more = chunk.length === 0 || req.write(chunk.join(''));
        if (done) {
          req.end();
          return;
        }
        if (!more) {
          req.once('drain', write);
          return;
        }
      }
    };
    write();
  });
}

/** `n` lines looking up `params(i)`, made as they are written. */
export function* itemLines(n: number, params: (i: number) => object): Generator<string> {
  for (let i = 0; i < n; i++) yield JSON.stringify({ params: params(i), ref: String(i) });
}
