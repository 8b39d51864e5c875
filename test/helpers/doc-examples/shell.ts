// A page's terminal: its shell examples run in bash one after another, each finding what the ones before it
// exported, the directory they left and the files they wrote, as in a reader's terminal.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A command still running (a server an example started): what it has printed, and how to stop it. */
export interface Background {
  output(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

/** The variables bash sets itself, which a new bash sets again: not carried from one example to the next. */
function bashOwnVariables(): string[] {
  const own = spawnSync('bash', ['--noprofile', '--norc', '-c', 'compgen -v'], { encoding: 'utf8', env: {} });
  return [...own.stdout.split('\n').filter(Boolean), 'PWD', 'OLDPWD', 'SHLVL', '_'];
}

function collect(child: ChildProcess): () => Ran {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return () => ({ status: child.exitCode, stdout, stderr });
}

/** Ends a process group started `detached`: SIGTERM, then SIGKILL if it lingers. */
async function stopGroup(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export class PageShell {
  private count = 0;
  private readonly state: string;
  private readonly background: Background[] = [];

  /** A terminal in `dir` with the environment `env`; its own bookkeeping goes in `dir/.examples`. */
  constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.state = join(dir, '.examples');
    mkdirSync(this.state, { recursive: true });
    writeFileSync(join(this.state, 'cwd'), dir);
    writeFileSync(join(this.state, 'bash-own'), `${bashOwnVariables().join('\n')}\n`);
  }

  /**
   * The script that runs one example: the variables the previous ones set (exported or not) and the directory
   * they left, then the example's lines, stopping at the first that fails.
   */
  private script(code: string, save: boolean): string {
    const file = join(this.state, `example-${++this.count}.sh`);
    writeFileSync(file, `${code}\n`);
    const state = (name: string) => JSON.stringify(join(this.state, name));
    const variables = `$(compgen -v | grep -vxFf ${state('bash-own')})`;
    const keep = `declare -p ${variables} > ${state('variables')} 2>/dev/null`;
    return [
      `[ -f ${state('variables')} ] && . ${state('variables')}`,
      `cd "$(cat ${state('cwd')})"`,
      save ? `trap '${keep}; pwd > ${state('cwd')}; env -0 > ${state('env')}' EXIT` : '',
      'set -eo pipefail',
      `. ${JSON.stringify(file)}`,
    ].join('\n');
  }

  private spawn(code: string, save: boolean): ChildProcess {
    return spawn('bash', ['--noprofile', '--norc', '-c', this.script(code, save)], {
      cwd: this.dir,
      env: this.env,
      detached: true, // its own process group, so that a timeout or stop() ends everything it started
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** Runs an example to its end (or `timeoutMs`, then ends it). */
  async run(code: string, timeoutMs: number): Promise<Ran> {
    const child = this.spawn(code, true);
    const result = collect(child);
    const exited = once(child, 'exit');
    const timer = setTimeout(() => void stopGroup(child, 2_000), timeoutMs);
    await exited;
    clearTimeout(timer);
    return result();
  }

  /** Starts an example that keeps running; the page's end (close) stops it. */
  start(code: string): Background {
    const child = this.spawn(code, false);
    const result = collect(child);
    const job: Background = {
      output: () => `${result().stdout}\n${result().stderr}`,
      exited: () => child.exitCode !== null || child.signalCode !== null,
      stop: () => stopGroup(child),
    };
    this.background.push(job);
    return job;
  }

  /** The environment the examples so far have left exported: a TypeScript example runs with it. */
  exported(): NodeJS.ProcessEnv {
    const file = join(this.state, 'env');
    if (!existsSync(file)) return this.env;
    const entries = readFileSync(file, 'utf8')
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]);
    return Object.fromEntries(entries);
  }

  /** The directory the examples so far have left the terminal in. */
  cwd(): string {
    return readFileSync(join(this.state, 'cwd'), 'utf8').trim();
  }

  /** Stops whatever the page's examples left running. */
  async close(): Promise<void> {
    await Promise.all(this.background.map((job) => job.stop()));
  }
}
