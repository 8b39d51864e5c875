// The address rules (contract §8) on the address connected to: loopback, private, link-local, multicast and
// unspecified refused in every form, a name that resolves to one refused, and a redirect never followed.
import { afterEach, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/webhooks/addresses.js';
import { webhookPoster } from '../../src/webhooks/post.js';
import { startReceiver } from './receiver.js';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '0.0.0.0',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111'])('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('a webhook post', () => {
  const closing: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  async function refused(url: string) {
    const poster = webhookPoster({ allowPrivate: false });
    closing.push(() => poster.close());
    return poster.post(url, { 'content-type': 'application/json' }, '{}');
  }

  it.each([
    ['loopback', (port: number) => `http://127.0.0.1:${port}/`],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/`],
    ['IPv4-mapped IPv6 loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['a name that resolves to loopback', (port: number) => `http://localhost:${port}/`],
    ['private', () => 'http://10.0.0.1/'],
    ['link-local (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('never connects to %s', async (_what, url) => {
    const receiver = await startReceiver();
    closing.push(receiver.close);
    const attempt = await refused(url(receiver.port));
    expect(attempt.status_code).toBeNull();
    expect(attempt.error).toMatch(/refused address/);
    expect(receiver.received).toHaveLength(0);
  });

  it('does not follow a redirect: the 3xx is the answer, retried as any failure', async () => {
    const target = await startReceiver();
    closing.push(target.close);
    const redirecting = await startReceiver((_received, response) => {
      response.writeHead(307, { location: target.url }).end();
      return null;
    });
    closing.push(redirecting.close);
    const poster = webhookPoster({ allowPrivate: true });
    closing.push(() => poster.close());
    const attempt = await poster.post(redirecting.url, { 'content-type': 'application/json' }, '{}');
    expect(attempt.status_code).toBe(307);
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer in time, and keeps 1 KB of a long answer', async () => {
    const slow = await startReceiver((_received, response) => {
      setTimeout(() => response.end(), 2_000);
      return null;
    });
    closing.push(slow.close);
    const poster = webhookPoster({ allowPrivate: true, timeoutMs: 200 });
    closing.push(() => poster.close());
    const late = await poster.post(slow.url, {}, '{}');
    expect(late.error).toMatch(/no answer within 200 ms/);

    const long = await startReceiver((_received, response) => {
      response.end('x'.repeat(100_000));
      return null;
    });
    closing.push(long.close);
    const attempt = await poster.post(long.url, {}, '{}');
    expect(attempt.status_code).toBe(200);
    expect(attempt.response).toHaveLength(1024);
  });
});
