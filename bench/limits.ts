// npm run bench:limits: what shared rate limits cost Redis, and how closely three servers hold a key's rate.
// Starts a redis-server of its own on a spare port (nothing else talks to it, so INFO commandstats counts only
// these calls), then for each limiter — asked at every request (before) and leased (after) — runs three
// limiters as three servers offering one key a load for SECONDS: steady (under the rate) and over it.
// Prints Redis round trips per request (EVAL/EVALSHA calls, the heartbeat included), the share answered
// without a promise, and the admitted total against rate × seconds + one second's burst.
// Usage: npm run bench:limits -- [SECONDS (default 10)]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { RateLimiter } from '../src/limits/rate-limit.js';
import { connectRedis, RedisFailurePolicy, waitForRedis } from '../src/limits/redis/connection.js';
import { LeasedRateLimiter } from '../src/limits/redis/leased-rate-limit.js';
import { ServerPresence } from '../src/limits/redis/presence.js';
import { RedisRateLimiter } from '../src/limits/redis/rate-limit.js';
import { createMetrics } from '../src/metrics.js';
import { isPromise } from '../src/store/maybe-promise.js';

const seconds = Number(process.argv[2] ?? 10);
if (!(seconds > 0)) {
  process.stderr.write('usage: npm run bench:limits -- [SECONDS]\n');
  process.exit(2);
}
const SERVERS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const probe = createServer().listen(0, '127.0.0.1');
await once(probe, 'listening');
const port = (probe.address() as { port: number }).port;
probe.close();
const redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', ''], {
  stdio: 'ignore',
});
const url = `redis://127.0.0.1:${port}`;
const admin = connectRedis(url);
admin.on('error', () => {}); // refused until redis-server listens
for (let i = 0; !(await waitForRedis(admin, 200)) && i < 50; i++);

/** Round trips so far: every EVAL and EVALSHA Redis has run. */
async function roundTrips(): Promise<number> {
  const stats = await admin.info('commandstats');
  let calls = 0;
  for (const [, calls_] of stats.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)) calls += Number(calls_);
  return calls;
}

interface Server {
  limiter: RateLimiter;
  close(): Promise<void>;
}

async function servers(leased: boolean, prefix: string): Promise<Server[]> {
  const made: Server[] = [];
  for (let i = 0; i < SERVERS; i++) {
    const policy = new RedisFailurePolicy('open', createMetrics());
    const client = connectRedis(url);
    await waitForRedis(client);
    if (!leased) {
      const limiter = new RedisRateLimiter(client, prefix, policy);
      made.push({ limiter, close: () => limiter.close() });
      continue;
    }
    const presence = new ServerPresence(client, prefix, policy);
    await presence.start();
    const limiter = new LeasedRateLimiter(client, prefix, policy, { presence });
    made.push({ limiter, close: () => limiter.close() });
  }
  return made;
}

/** Each server offers `perSecond` requests of one key, in batches every 10 ms, for `ms`. */
async function offer(made: Server[], rate: number, perSecond: number, ms: number) {
  let requests = 0;
  let admitted = 0;
  let atOnce = 0;
  const until = performance.now() + ms;
  await Promise.all(
    made.map(async ({ limiter }) => {
      while (performance.now() < until) {
        const batch = [];
        for (let n = 0; n < perSecond / 100; n++) {
          const decision = limiter.take('bench', rate);
          if (!isPromise(decision)) atOnce++;
          batch.push(decision);
        }
        for (const decision of await Promise.all(batch)) if (decision.allowed) admitted++;
        requests += batch.length;
        await sleep(10);
      }
    }),
  );
  return { requests, admitted, atOnce };
}

const scenarios = [
  { name: 'steady: rate 1000/s, 3 × 200/s offered', rate: 1_000, perSecond: 200 },
  { name: 'over: rate 200/s, 3 × 400/s offered', rate: 200, perSecond: 400 },
];
const rows: string[] = [];
for (const scenario of scenarios) {
  for (const leased of [false, true]) {
    const made = await servers(leased, `bench:${leased ? 'leased' : 'each'}:${scenario.rate}:`);
    const before = await roundTrips();
    const load = await offer(made, scenario.rate, scenario.perSecond, seconds * 1000);
    const trips = (await roundTrips()) - before;
    await Promise.all(made.map((s) => s.close()));
    const bound = scenario.rate * seconds + scenario.rate;
    const target = Math.min(bound, load.requests);
    rows.push(
      `| ${scenario.name} | ${leased ? 'leased' : 'every request'} | ${load.requests} | ${(trips / load.requests).toFixed(3)} | ` +
        `${((load.atOnce / load.requests) * 100).toFixed(1)} % | ${load.admitted} | ${target} | ${((load.admitted / target - 1) * 100).toFixed(1)} % |`,
    );
  }
}
process.stdout.write(
  `Three limiters on one redis-server of the bench's own, ${seconds} s each (npm run bench:limits -- ${seconds})\n\n` +
    '| load | limiter | requests | Redis round trips per request | answered without waiting | admitted | target | vs target |\n' +
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n' +
    `${rows.join('\n')}\n\n` +
    'target: the requests offered, at most rate × seconds + one second of burst (the bucket starts full).\n',
);
admin.disconnect();
redisServer.kill();
