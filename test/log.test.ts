import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { connectRedis } from '../src/limits/redis/connection.js';
import { safeLogSerializers } from '../src/log.js';
import { REDIS_URL } from './cluster/redis.js';

const PASSWORD = 's3cretpw';

/** A pino logger writing into a string, as the server's logs go to stdout. */
function capturedLogger(serializers?: pino.LoggerOptions['serializers']) {
  let lines = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines += String(chunk);
      done();
    },
  });
  return { log: pino({ serializers }, stream), lines: () => lines };
}

/** The error ioredis reports when Redis refuses a URL's password: it carries the AUTH command. */
async function wrongPasswordError(): Promise<Error> {
  const client = connectRedis(`redis://enrich:${PASSWORD}@${new URL(REDIS_URL).host}`);
  try {
    return await new Promise<Error>((resolve) => {
      client.once('error', resolve);
      client.connect().catch(() => {});
    });
  } finally {
    client.disconnect();
  }
}

describe('errors in the logs', () => {
  it("never show a password, though ioredis's error holds it and pino's own serializer would print it", async () => {
    const error = await wrongPasswordError();
    const unsafe = capturedLogger();
    unsafe.log.warn({ err: error }, 'Redis connection failed');
    expect(unsafe.lines()).toContain(PASSWORD);

    const safe = capturedLogger(safeLogSerializers);
    safe.log.warn({ err: error }, 'Redis connection failed');
    expect(safe.lines()).not.toContain(PASSWORD);
    expect(JSON.parse(safe.lines()).err).toMatchObject({
      type: 'ReplyError',
      message: expect.stringMatching(/WRONGPASS/),
    });
  });

  it('keep the message, code, stack and cause of an error, with passwords of the configured URLs masked', () => {
    const previous = process.env.DATABASE_URL;
    process.env.DATABASE_URL = `postgres://app:${PASSWORD}@db/enrich`;
    try {
      const cause = Object.assign(new Error(`cannot reach postgres://app:${PASSWORD}@db/enrich`), {
        code: 'ECONNREFUSED',
        password: PASSWORD,
      });
      const { log, lines } = capturedLogger(safeLogSerializers);
      log.error({ err: new Error('the data store is unavailable', { cause }) }, 'request failed');
      const { err } = JSON.parse(lines());
      expect(lines()).not.toContain(PASSWORD);
      expect(err.message).toBe('the data store is unavailable');
      expect(err.stack).toMatch(/^Error: the data store is unavailable\n/);
      expect(err.cause).toMatchObject({
        code: 'ECONNREFUSED',
        message: 'cannot reach postgres://app:***@db/enrich',
      });
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
    }
  });
});
