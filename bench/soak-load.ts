// The soak's load: wrk sending the mixed requests, each tagged with its class (X-Request-Id, echoed by the
// server) so that every response's status is counted against its class; paced to a rate, or flat out.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MixedRequest, Token } from './soak-mix.js';
import { PACING, runWrkScript } from './wrk.js';

/**
 * Every request is formatted once, in init(). With a rate, `PACING` holds each connection to one schedule.
 * `response` counts statuses by the class the echoed request id names; done() gathers the thread's counts
 * and writes one JSON line.
 */
const SCRIPT = `
local threads = {}
function setup(thread) table.insert(threads, thread) end

local tokens = {}
for t in string.gmatch(os.getenv("SOAK_TOKENS"), "[^,]+") do tokens[#tokens + 1] = t end
local names = { main = 1, limited = 2, unknown = 3 }
local requests = {}
local i = 0
-- After wrk's own init, which sets the Host header wrk.format adds.
function init(args)
  for line in io.lines(os.getenv("SOAK_REQUESTS")) do
    local class, token, path = line:match("^(%S+)\\t(%S+)\\t(.+)$")
    local headers = { ["Authorization"] = "Bearer " .. tokens[names[token]], ["X-Request-Id"] = class }
    requests[#requests + 1] = wrk.format("GET", path, headers)
  end
  i = tonumber(os.getenv("SOAK_OFFSET") or "0") % #requests
end
local rate = tonumber(os.getenv("SOAK_RATE") or "0")
counts = {}

request = function()
  i = i + 1
  if i > #requests then i = 1 end
  return requests[i]
end

${PACING}
response = function(status, headers, body)
  local key = (headers["x-request-id"] or headers["X-Request-Id"] or "?") .. " " .. status
  counts[key] = (counts[key] or 0) + 1
end

done = function(summary, latency, requests)
  local all = {}
  for _, thread in ipairs(threads) do
    for key, n in pairs(thread:get("counts")) do all[key] = (all[key] or 0) + n end
  end
  local parts = {}
  for key, n in pairs(all) do parts[#parts + 1] = string.format('"%s":%d', key, n) end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%d,"p99":%d,"counts":{%s}}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), table.concat(parts, ",")))
end
`;

interface SegmentOutput {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  p50: number;
  p99: number;
  /** Responses by `class status`. */
  counts: Record<string, number>;
}

/** What one run of the mix measured. */
export interface Segment {
  seconds: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses by class, then status. */
  statuses: Map<string, Map<number, number>>;
  /** Connect, read and write errors and timeouts. */
  socketErrors: number;
  loadCpuSeconds: number;
}

export interface MixLoad {
  origin: string;
  tokens: Record<Token, string>;
  /** Files the script reads, written by `prepareMix`. */
  script: string;
  requests: string;
}

/** Writes the script and the requests (one `class\ttoken\tpath` per line) into `dir`. */
export function prepareMix(
  dir: string,
  origin: string,
  tokens: Record<Token, string>,
  mixed: MixedRequest[],
): MixLoad {
  const script = path.join(dir, 'soak.lua');
  const requests = path.join(dir, 'soak-requests.tsv');
  writeFileSync(script, SCRIPT);
  writeFileSync(requests, `${mixed.map((r) => `${r.name}\t${r.token}\t${r.path}`).join('\n')}\n`);
  return { origin, tokens, script, requests };
}

let offset = 0;

/**
 * One wrk run of the mix: `connections` connections for `seconds`, at `rate` requests a second (0: flat
 * out). Each run starts further along the list of requests than the last.
 */
export async function runMix(
  load: MixLoad,
  seconds: number,
  connections: number,
  rate: number,
  onStart?: (pid: number) => void,
): Promise<Segment> {
  const { main, limited, unknown } = load.tokens;
  offset += 7919;
  const env = {
    SOAK_TOKENS: [main, limited, unknown].join(','),
    SOAK_REQUESTS: load.requests,
    SOAK_RATE: String(rate),
    SOAK_OFFSET: String(offset),
  };
  const { output: o, cpuSeconds } = await runWrkScript<SegmentOutput>(
    { origin: load.origin, script: load.script, env, connections, seconds },
    onStart,
  );
  const statuses = new Map<string, Map<number, number>>();
  for (const [key, n] of Object.entries(o.counts)) {
    const [name = '?', status = '0'] = key.split(' ');
    const byStatus = statuses.get(name) ?? new Map<number, number>();
    byStatus.set(Number(status), (byStatus.get(Number(status)) ?? 0) + n);
    statuses.set(name, byStatus);
  }
  const measured = o.durationUs / 1e6;
  return {
    seconds: measured,
    requests: o.requests,
    perSecond: o.requests / measured,
    p50Ms: o.p50 / 1000,
    p99Ms: o.p99 / 1000,
    statuses,
    socketErrors: o.connect + o.read + o.write + o.timeout,
    loadCpuSeconds: cpuSeconds,
  };
}
