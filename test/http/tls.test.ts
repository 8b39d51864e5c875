// `enrich serve --tls-cert --tls-key` against real clients: curl with --cacert, node's https with keep-alive.
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoInstructions } from '../../src/demo.js';
import { dataSet, PERSON_ID, type Server, serve } from '../cluster/serve.js';
import { enrich } from '../helpers/cli.js';

const run = promisify(execFile);

/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl as docs/https.md says. */
function makeCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}-cert.pem`);
  const key = join(dir, `${name}-key.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** curl, trusting `ca`: the HTTP status, or curl's own exit code when it refused the connection. */
async function curl(url: string, ca: string, token: string): Promise<{ status: number; body: string }> {
  try {
    const { stdout } = await run('curl', [
      '-sS',
      '--cacert',
      ca,
      '-H',
      `Authorization: Bearer ${token}`,
      '-w',
      '\n%{http_code}',
      url,
    ]);
    const lines = stdout.split('\n');
    return { status: Number(lines.pop()), body: lines.join('\n') };
  } catch (error) {
    return { status: -(error as { code: number }).code, body: String((error as { stderr: string }).stderr) };
  }
}

/** The SHA-256 fingerprint of the certificate a fresh connection is shown. */
function servedCertificate(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

const fingerprint = (file: string) =>
  execFileSync('openssl', ['x509', '-in', file, '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' })
    .trim()
    .replace(/^.*=/, '');

/** Waits until `predicate` holds of the server's log, for at most 10 s. */
async function logSays(server: Server, predicate: (log: string) => boolean): Promise<void> {
  for (let i = 0; i < 100 && !predicate(server.stdout()); i++) await new Promise((r) => setTimeout(r, 100));
  expect(predicate(server.stdout()), server.stdout()).toBe(true);
}

describe('enrich serve over HTTPS', () => {
  let dir: string;
  let db: string;
  let token: string;
  let first: { cert: string; key: string };
  let second: { cert: string; key: string };
  const live = { cert: '', key: '' };
  let server: Server;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-tls-'));
    ({ db, token } = dataSet(1000));
    first = makeCertificate(dir, 'first');
    second = makeCertificate(dir, 'second');
    live.cert = join(dir, 'cert.pem');
    live.key = join(dir, 'key.pem');
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    server = await serve(['--db', db, '--workers', '1', '--tls-cert', live.cert, '--tls-key', live.key], {
      LOG_LEVEL: 'info',
    });
  }, 60_000);
  afterAll(() => server?.stop());

  it("says it listens on https://, in its own log line and in the framework's", async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    // The worker's framework line can reach the pipe after the line that gave the address.
    await logSays(server, (log) => /Server listening at https:/.test(log));
    expect(server.stdout()).toMatch(/Server listening at https:\/\/127\.0\.0\.1:\d+/);
    expect(server.stdout()).not.toMatch(/listening at http:\/\//);
  });

  it('answers curl --cacert with the record, over HTTP/1.1', async () => {
    const response = await curl(`${server.url}/people?id=${PERSON_ID}`, first.cert, token);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).id).toBe(PERSON_ID);
  });

  it('reloads the certificate on SIGHUP: new connections get the new one, a kept-alive one finishes its request', async () => {
    const agent = new Agent({ keepAlive: true, ca: readFileSync(first.cert), maxSockets: 1 });
    const request = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = get(`${server.url}/people?id=${PERSON_ID}`, {
          agent,
          headers: { authorization: `Bearer ${token}` },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
        });
        req.on('error', reject);
      });
    try {
      expect(await request()).toEqual({ status: 200, reused: false });
      copyFileSync(second.cert, live.cert);
      copyFileSync(second.key, live.key);
      server.child.kill('SIGHUP');
      await logSays(server, (log) => log.includes('TLS certificate reloaded'));

      expect(await servedCertificate(server.url)).toBe(fingerprint(second.cert));
      expect((await curl(`${server.url}/people?id=${PERSON_ID}`, second.cert, token)).status).toBe(200);
      // curl 60: the peer's certificate is not one the old CA file vouches for.
      expect((await curl(`${server.url}/people?id=${PERSON_ID}`, first.cert, token)).status).toBe(-60);
      expect(await request()).toEqual({ status: 200, reused: true });
      expect(server.child.exitCode).toBeNull();
    } finally {
      agent.destroy();
    }
  });

  it('keeps the current certificate when the files no longer hold a good one', async () => {
    const before = await servedCertificate(server.url);
    writeFileSync(live.key, 'not a key\n');
    server.child.kill('SIGHUP');
    await logSays(server, (log) => log.includes('TLS certificate not reloaded'));
    expect(await servedCertificate(server.url)).toBe(before);
    expect(server.stdout()).toContain(`${live.key}: not a PEM private key`);
  });
});

describe('enrich serve over HTTPS with workers', () => {
  it('passes SIGHUP on to every worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-tls-'));
    const { db } = dataSet(1000);
    const [a, b] = [makeCertificate(dir, 'a'), makeCertificate(dir, 'b')];
    const live = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
    copyFileSync(a.cert, live.cert);
    copyFileSync(a.key, live.key);
    const server = await serve(
      ['--db', db, '--workers', '2', '--tls-cert', live.cert, '--tls-key', live.key],
      {
        LOG_LEVEL: 'info',
      },
    );
    try {
      expect(server.url).toMatch(/^https:/);
      copyFileSync(b.cert, live.cert);
      copyFileSync(b.key, live.key);
      server.child.kill('SIGHUP');
      await logSays(server, (log) => log.split('TLS certificate reloaded').length - 1 === 2);
      const seen = new Set<string>();
      for (let i = 0; i < 8; i++) seen.add(await servedCertificate(server.url));
      expect([...seen]).toEqual([fingerprint(b.cert)]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('HTTPS settings that cannot work', () => {
  let dir: string;
  let good: { cert: string; key: string };
  let other: { cert: string; key: string };
  let encrypted: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-tls-'));
    good = makeCertificate(dir, 'good');
    other = makeCertificate(dir, 'other');
    encrypted = join(dir, 'encrypted-key.pem');
    execFileSync('openssl', [
      'pkey',
      '-in',
      good.key,
      '-aes256',
      '-passout',
      'pass:secret',
      '-out',
      encrypted,
    ]);
  });

  const start = (args: string[], env: Record<string, string> = {}) =>
    enrich(['serve', '--port', '0', '--workers', '1', '--db', join(dir, 'enrich.db'), ...args], env);

  it.each([
    [
      'a missing key file',
      () => ['--tls-cert', good.cert, '--tls-key', join(dir, 'nope.pem')],
      /nope\.pem: no such file/,
    ],
    [
      'a key that is not the certificate’s',
      () => ['--tls-cert', good.cert, '--tls-key', other.key],
      /other-key\.pem: the private key does not match the certificate in .*good-cert\.pem/,
    ],
    [
      'a certificate file holding a key',
      () => ['--tls-cert', good.key, '--tls-key', good.key],
      /good-key\.pem: not a PEM certificate/,
    ],
    [
      'an encrypted key',
      () => ['--tls-cert', good.cert, '--tls-key', encrypted],
      /encrypted-key\.pem: the private key is encrypted/,
    ],
    ['a certificate without its key', () => ['--tls-cert', good.cert], /tlsCert, tlsKey: give both/],
  ])(
    'stop the server at start with a message naming the file, never its content: %s',
    (_what, args, message) => {
      const run = start(args());
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(message);
      const keyLines = readFileSync(good.key, 'utf8').split('\n').slice(1, -2);
      for (const line of keyLines) expect(run.stderr).not.toContain(line);
      expect(run.stderr).not.toMatch(/BEGIN|PRIVATE KEY-----/);
    },
  );

  it('are read from ENRICH_TLS_CERT and ENRICH_TLS_KEY too', () => {
    const run = start([], { ENRICH_TLS_CERT: good.cert, ENRICH_TLS_KEY: other.key });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/does not match the certificate/);
  });
});

describe('the demo lines over HTTPS', () => {
  it('show an https:// curl line that trusts the certificate file', () => {
    const lines = demoInstructions(
      { token: 'enr_x', workEmail: 'jane@acme.com.au', loaded: true },
      'https://127.0.0.1:8443',
      'certs/cert.pem',
    );
    expect(lines).toContain(
      `  curl --cacert 'certs/cert.pem' -H "Authorization: Bearer enr_x" 'https://127.0.0.1:8443/people?work_email=jane%40acme.com.au'`,
    );
  });
});
