// The frame each benchmark script runs in: options, a temp dir, the build, the report, and cleanup on any exit.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, lastBuild } from './build.js';
import { stopAll, stopChildrenOnSignals } from './children.js';
import { commandLine } from './format.js';
import { appendToHistory } from './history.js';
import { say } from './log.js';
import { describeMachine, type Machine } from './system.js';

interface SessionOptions {
  rev?: string;
  skipBuild: boolean;
  out?: string;
}

/** What every report's heading needs, gathered before the work starts. */
export interface Session<O> {
  options: O;
  /** A temp dir for this run, removed at the end. */
  work: string;
  command: string;
  machine: Machine;
  built: string;
  date: Date;
  loadAverage: number[];
}

/**
 * Parses the options, builds, runs `body`, prints its markdown report and appends it to `options.out`.
 * Every child process is stopped and the temp dir removed on success, error and Ctrl-C alike.
 * @example runScript('bench', parseBenchOptions, USAGE, async (session) => renderReport(…))
 */
export function runScript<O extends SessionOptions>(
  script: string,
  parse: (argv: string[]) => O,
  usage: string,
  body: (session: Session<O>) => Promise<string>,
): void {
  const argv = process.argv.slice(2);
  let options: O;
  try {
    options = parse(argv);
  } catch (error) {
    process.stderr.write(`${script}: ${(error as Error).message}\n${usage}\n`);
    process.exitCode = 2;
    return;
  }
  const work = mkdtempSync(path.join(os.tmpdir(), `enrich-${script.replace(':', '-')}-`));
  stopChildrenOnSignals(() => rmSync(work, { recursive: true, force: true }));
  const run = async () => {
    const date = new Date();
    const loadAverage = os.loadavg();
    const { rev, skipBuild } = options;
    say(
      skipBuild
        ? 'reusing the last build'
        : `building ${rev ?? 'the working tree'} (tsc -p tsconfig.build.json)`,
    );
    const built = skipBuild ? lastBuild() : await build(rev);
    const command = commandLine(script, argv);
    const session = { options, work, command, machine: describeMachine(), built, date, loadAverage };
    const report = await body(session);
    process.stdout.write(`\n${report}\n`);
    if (options.out) {
      appendToHistory(options.out, report);
      say(`appended to ${options.out}`);
    }
  };
  run()
    .catch((error: unknown) => {
      process.stderr.write(`${script}: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    })
    .finally(async () => {
      await stopAll();
      rmSync(work, { recursive: true, force: true });
    });
}
