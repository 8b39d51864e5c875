// Slow and idle clients against a real server on a real port: they are cut off, and others are served.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { dataSet, serve } from '../cluster/serve.js';

interface Ending {
  /** What the server wrote before closing. */
  received: string;
  /** Milliseconds from connecting to the close. */
  afterMs: number;
}

/** Connects, lets `talk` write, and resolves when the server closes the connection. */
function session(port: number, talk: (socket: Socket) => void = () => {}): Promise<Ending> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let received = '';
    const socket = connect(port, '127.0.0.1', () => talk(socket));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => resolve({ received, afterMs: performance.now() - started }));
  });
}

/** Writes `text` one byte every `everyMs`, until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

describe('a server with short timeouts and a connection cap', () => {
  let server: RunningServer;
  let port: number;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-slow-'));
    const config = loadConfig(
      { port: '0', db: join(dir, 'enrich.db') },
      {
        LOG_LEVEL: 'silent',
        ENRICH_HEADERS_TIMEOUT_MS: '500',
        ENRICH_REQUEST_TIMEOUT_MS: '1000',
        ENRICH_KEEP_ALIVE_TIMEOUT_MS: '300',
        ENRICH_MAX_CONNECTIONS: '8',
      },
    );
    server = await startServer(config, openSqliteStore(config.dbPath));
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const healthy = async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status;

  it('closes a connection that sends nothing once the header timeout has passed, with 408', async () => {
    const idle = await session(port);
    expect(idle.received).toMatch(/^HTTP\/1\.1 408/);
    expect(idle.afterMs).toBeGreaterThanOrEqual(450);
    expect(idle.afterMs).toBeLessThan(3_000);
  });

  it('cuts off a client sending its headers byte by byte, and answers others meanwhile', async () => {
    const loris = session(port, (socket) =>
      trickle(
        socket,
        'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n',
        50,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await healthy()).toBe(200);
    const ending = await loris;
    expect(ending.received).toMatch(/^HTTP\/1\.1 408/);
    expect(ending.afterMs).toBeLessThan(3_000);
  });

  it('cuts off a client sending its body slower than the request timeout allows', async () => {
    const slow = await session(port, (socket) => {
      socket.write(
        'POST /v1/people/search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{',
      );
      trickle(socket, '"a":"'.padEnd(199, 'b'), 100);
    });
    expect(slow.received).toMatch(/^HTTP\/1\.1 408/);
    expect(slow.afterMs).toBeGreaterThanOrEqual(900);
    expect(slow.afterMs).toBeLessThan(4_000);
  });

  /** A chunked NDJSON body to `path`, its first chunk at once and then a byte every `everyMs`. */
  const trickledStream =
    (path: string, everyMs = 200) =>
    (socket: Socket) => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`,
      );
      trickle(socket, '1\r\n \r\n'.repeat(100), everyMs);
    };

  it('closes a body trickled to a path no route takes within the request timeout, whatever its path says', async () => {
    for (const path of ['/x/bulk', '/v1/people/bulk?x=/bulk']) {
      const slow = await session(port, trickledStream(path));
      expect(slow.afterMs).toBeLessThan(4_000);
    }
  });

  it('does not let trickled bodies to a bulk path hold every connection: each is closed by the deadline', async () => {
    const held = Array.from({ length: 8 }, () => session(port, trickledStream('/x/bulk')));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the server has taken all eight
    const endings = await Promise.all(held);
    for (const ending of endings) expect(ending.afterMs).toBeLessThan(4_000);
    expect(await healthy()).toBe(200);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const kept = await session(port, (socket) =>
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'),
    );
    expect(kept.received).toMatch(/^HTTP\/1\.1 200/);
    expect(kept.afterMs).toBeLessThan(3_000);
  });

  it('closes connections past the cap as they arrive, and takes new ones once others have gone', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < 8; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await new Promise((resolve) => socket.once('connect', resolve));
      held.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server has taken all eight
    const refused = await session(port, (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(refused.received).toBe('');
    expect(refused.afterMs).toBeLessThan(400);
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await healthy()).toBe(200);
  });
});

describe('a server of several workers', () => {
  it('holds each worker to the connection cap: node:cluster leaves it to the worker', async () => {
    const { db } = dataSet(100);
    const server = await serve(['--db', db, '--workers', '2'], {
      ENRICH_MAX_CONNECTIONS: '2',
      ENRICH_HEADERS_TIMEOUT_MS: '5000',
    });
    const port = Number(new URL(server.url).port);
    const sockets: Socket[] = [];
    let closed = 0;
    try {
      for (let i = 0; i < 8; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.on('close', () => closed++);
        sockets.push(socket);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(8 - closed).toBeLessThanOrEqual(4);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
