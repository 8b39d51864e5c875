// Compression of large responses of Fastify's routes (the OpenAPI document, metrics, reports) when the
// client asks for it. Lookups never pass here: the lookup path answers them before Fastify's router.
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Below this many bytes a response goes as it is: it fits in one network packet either way, so
 * compressing it saves no round trip (a problem document, a health answer).
 */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Registers gzip and brotli (brotli first when the client accepts both, at the quality the plugin
 * recommends for on-the-fly use). Registered before any route, since it attaches to routes as they are
 * declared. Request bodies are not decompressed: no route takes a compressed body.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD,
    globalDecompression: false,
  });
}
