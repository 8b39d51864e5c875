// The load generator, run as its own process: a LoadSpec as JSON on stdin, autocannon on loopback, JSON out.
import { createHistogram } from 'node:perf_hooks';
import autocannon, { type Client } from 'autocannon';
import { type LoadResult, type LoadSpec, MEASURING } from './load-protocol.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function checkSpec(spec: LoadSpec): void {
  if (!LOOPBACK.has(new URL(spec.origin).hostname))
    throw new Error(`refusing to load ${spec.origin}: not loopback`);
  if (spec.paths.length === 0) throw new Error('no request paths');
  if (!(spec.duration > 0 && spec.duration <= 600)) throw new Error('duration must be 1 to 600 s');
}

/** Each connection cycles through every request, starting evenly spread over the list. */
function rotatingClients(spec: LoadSpec) {
  const { paths, bodies, connections } = spec;
  const requests = paths.map((path, i) =>
    bodies
      ? { path, method: 'POST' as const, body: bodies[i], headers: { 'content-type': 'application/json' } }
      : { path, method: spec.method ?? 'GET' },
  );
  let next = 0;
  return (client: Client) => {
    const offset = Math.floor(((next++ % connections) * paths.length) / connections);
    client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
  };
}

async function measure(spec: LoadSpec, duration: number, overallRate?: number) {
  const latencyUs = createHistogram();
  const instance = autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration,
    timeout: 10,
    overallRate,
    headers: spec.headers,
    requests: [{ path: spec.paths[0] }],
    setupClient: rotatingClients(spec),
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencyUs.record(Math.max(1, Math.round(ms * 1000)));
  });
  const result = await instance;
  return { result, latencyUs };
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const spec = JSON.parse(input) as LoadSpec;
  checkSpec(spec);
  if (spec.warmup > 0) await measure(spec, spec.warmup);
  process.stdout.write(`${MEASURING}\n`);
  const cpuBefore = process.cpuUsage();
  const { result, latencyUs } = await measure(spec, spec.duration, spec.overallRate);
  const cpu = process.cpuUsage(cpuBefore);
  const ok = result['2xx'];
  const report: LoadResult = {
    seconds: result.duration,
    rps: ok / result.duration,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    p50Ms: latencyUs.count > 0 ? latencyUs.percentile(50) / 1000 : Number.NaN,
    p99Ms: latencyUs.count > 0 ? latencyUs.percentile(99) / 1000 : Number.NaN,
    autocannonP99Ms: result.latency.p99,
    loadCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`load: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
