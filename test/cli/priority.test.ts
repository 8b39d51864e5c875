// enrich import yields the CPU to a server beside it: every thread of the process at nice 19 (the lowest), those
// running when it lowers itself and those it starts after; `--priority normal` keeps the shell's.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { enrich } from '../helpers/cli.js';

/** The nice value of each thread of a process that lowered itself, and of a worker it started after. */
const script = `
  import { readdirSync, readFileSync } from 'node:fs';
  import { Worker } from 'node:worker_threads';
  import { runInBackground } from './dist/priority.js';
  const nices = () => readdirSync('/proc/self/task').map((t) =>
    Number(readFileSync('/proc/self/task/' + t + '/stat', 'utf8').split(') ')[1].split(' ')[16]));
  runInBackground();
  const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
  worker.on('online', () => { console.log(JSON.stringify(nices())); worker.terminate(); });
`;

describe('enrich import --priority', () => {
  it('lowers every thread, those started after included', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const nices = JSON.parse(run.stdout) as number[];
    expect(nices.length).toBeGreaterThan(4);
    expect(new Set(nices)).toEqual(new Set([19]));
  });

  it('takes low or normal, and refuses anything else before importing', () => {
    const wrong = enrich(['import', 'people', 'people.ndjson', '--priority', 'high', '--db', ':memory:']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toBe('enrich: --priority: expected low or normal, got "high"\n');
  });
});
