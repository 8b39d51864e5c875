// Top self-time functions of a V8 .cpuprofile (as `npm run bench -- --cpu-prof DIR` writes): what to optimise.
// Usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [TOP=25] [NAME,NAME… for inclusive time]
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
}

/** `name (node_modules/pkg/file.js:12)`, short enough to read, precise enough to find. */
function frameName({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const file = url.replace(/^file:\/\//, '');
  const shown = file.includes('node_modules/')
    ? file.slice(file.lastIndexOf('node_modules/') + 'node_modules/'.length)
    : path.relative(process.cwd(), file);
  return `${name} (${shown}:${lineNumber + 1})`;
}

/** Self time per function, ranked; samples in all. */
export function summarise(profile: CpuProfile) {
  const total = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const self = new Map<string, number>();
  for (const node of profile.nodes) {
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + (node.hitCount ?? 0));
  }
  const ranked = [...self].sort((a, b) => b[1] - a[1]);
  return { total, seconds: (profile.endTime - profile.startTime) / 1e6, ranked };
}

/** Samples under (or in) a function of each name: a stage's whole cost, callees included, counted once. */
export function inclusive(profile: CpuProfile, names: string[]): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const result = new Map(names.map((n) => [n, 0]));
  for (const node of profile.nodes) {
    if (!node.hitCount) continue;
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = byId.get(node.id); at; at = parent.get(at.id)) {
      const name = at.callFrame.functionName;
      if (result.has(name) && !seen.has(name)) {
        seen.add(name);
        result.set(name, result.get(name)! + node.hitCount);
      }
    }
  }
  return result;
}

function main() {
  const [file, topArg = '25', names] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: profile-summary.ts FILE.cpuprofile [TOP]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const { total, seconds, ranked } = summarise(profile);
  const idle = ranked.find(([name]) => name === '(idle)')?.[1] ?? 0;
  process.stdout.write(
    `${file}: ${seconds.toFixed(1)} s, ${total} samples, ${((idle / total) * 100).toFixed(1)}% idle\n`,
  );
  process.stdout.write('self %  of busy %  function\n');
  for (const [name, hits] of ranked.slice(0, Number(topArg))) {
    const busy = name === '(idle)' ? '' : ((hits / (total - idle)) * 100).toFixed(1);
    process.stdout.write(`${((hits / total) * 100).toFixed(1).padStart(6)}  ${busy.padStart(9)}  ${name}\n`);
  }
  if (!names) return;
  process.stdout.write('\ninclusive: of busy %  function (callees included)\n');
  for (const [name, hits] of inclusive(profile, names.split(','))) {
    process.stdout.write(`${((hits / (total - idle)) * 100).toFixed(1).padStart(19)}  ${name}\n`);
  }
}

main();
