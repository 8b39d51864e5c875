// Compression of a large answer built outside Fastify (a bulk's), when the client asks for it: at fast levels,
// off the event loop's thread (zlib's pool), so that a big bulk costs the server little more than sending it.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { negotiateEncoding } from './static-asset.js';

/** Smaller answers are sent as they are, as @fastify/compress does for Fastify's routes. */
export const COMPRESS_FROM_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * The body compressed in the encoding the client weighs highest, with its `content-encoding`; undefined
 * when it accepts none, or the body is small.
 */
export async function compressBody(
  body: readonly Buffer[],
  length: number,
  acceptEncoding: string | undefined,
): Promise<{ encoding: 'br' | 'gzip'; body: Buffer } | undefined> {
  if (length < COMPRESS_FROM_BYTES) return undefined;
  const encoding = negotiateEncoding(acceptEncoding);
  if (encoding === 'identity') return undefined;
  const whole = Buffer.concat(body as Buffer[], length);
  const compressed =
    encoding === 'br'
      ? await brotli(whole, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: length },
        })
      : await gzipped(whole, { level: 4 });
  return { encoding, body: compressed };
}
