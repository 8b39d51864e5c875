// Compiling the code under test into the benchmark's own directory: the working tree, or a git revision.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { runToEnd } from './children.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
/**
 * Where the benchmark's build goes. Its own directory, so that a concurrent `npm run build` in the same
 * checkout cannot swap the code under test halfway through a run; inside node_modules so imports resolve.
 */
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'enrich-bench');
export const BUILD_DIR = path.join(CACHE, 'dist');
/** A build lands here first and replaces BUILD_DIR only when it compiled: a failed build leaves the last good one. */
const STAGE = path.join(CACHE, 'dist-next');
const DESCRIPTION = path.join(BUILD_DIR, 'BUILT_FROM');
const TREE = path.join(CACHE, 'tree');
const TIMEOUT_MS = 5 * 60_000;

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The server's build (`tsc -p tsconfig.build.json`, as `npm run build` does first) of `project` into STAGE. */
const compile = (project: string) =>
  runToEnd('tsc', process.execPath, [TSC, '-p', project, '--outDir', STAGE], {
    cwd: ROOT,
    timeoutMs: TIMEOUT_MS,
  });

/**
 * The working tree's server, built as `npm run build` builds it; returns what was built, for the report.
 * (Not `npm run build -- --outDir`: that script builds the client too, and the flag would reach only it.)
 */
async function buildWorkingTree(): Promise<string> {
  await compile(path.join(ROOT, 'tsconfig.build.json'));
  const head = git('rev-parse', '--short', 'HEAD');
  return git('status', '--porcelain', '--', 'src') ? `working tree on ${head}, src/ modified` : head;
}

/** The same build of `src/` as committed at `revision` (git archive), leaving the working tree alone. */
async function buildRevision(revision: string): Promise<string> {
  const commit = git('rev-parse', '--short', `${revision}^{commit}`);
  rmSync(TREE, { recursive: true, force: true });
  mkdirSync(TREE, { recursive: true });
  const archive = execFileSync('git', ['archive', commit, 'src', 'tsconfig.json', 'tsconfig.build.json'], {
    cwd: ROOT,
    maxBuffer: 1024 ** 3,
  });
  execFileSync('tar', ['-x', '-C', TREE], { input: archive });
  await compile(path.join(TREE, 'tsconfig.build.json'));
  return `${commit} (built from git)`;
}

/** Builds into BUILD_DIR from scratch; `revision` builds that commit's src/ instead of the working tree. */
export async function build(revision?: string): Promise<string> {
  rmSync(STAGE, { recursive: true, force: true });
  mkdirSync(STAGE, { recursive: true });
  const description = revision ? await buildRevision(revision) : await buildWorkingTree();
  rmSync(BUILD_DIR, { recursive: true, force: true });
  renameSync(STAGE, BUILD_DIR);
  // The CLI reads its version from the package.json two levels above dist/cli, as in a checkout.
  copyFileSync(path.join(ROOT, 'package.json'), path.join(CACHE, 'package.json'));
  writeFileSync(DESCRIPTION, `${description}, built ${new Date().toISOString().slice(0, 16)} UTC`);
  return readFileSync(DESCRIPTION, 'utf8');
}

/** What the last successful build was built from, for --skip-build; throws when there is none. */
export function lastBuild(): string {
  if (!existsSync(DESCRIPTION)) throw new Error('no earlier build to reuse: run once without --skip-build');
  return readFileSync(DESCRIPTION, 'utf8');
}
