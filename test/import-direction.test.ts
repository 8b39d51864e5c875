// Imports point down: every room of src/ imports only rooms of the layers below its own (STYLE.md, "Arrows
// point down"), a backend only where the store is opened, and the synthetic generator only where it is run.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * The rooms from the bottom up. A room is a folder of src/, or a file directly in it; the store's backends
 * and the module that chooses one are rooms of their own. A room may import the rooms of lower layers,
 * never one of its own layer or above.
 */
const LAYERS: readonly (readonly string[])[] = [
  // The domain's words, the problem table, and what any process has.
  ['vocabulary', 'errors', 'config-error'],
  ['config', 'metrics', 'worker', 'shutdown', 'priority', 'cluster-metrics', 'demo-records'],
  // Records' shapes (TypeBox); the log.
  ['schemas', 'log'],
  // Normalising what people type; change events and how they are classified and rendered.
  ['identifiers', 'changes'],
  // The store's roles (interfaces, the SQL both backends share, the serving index).
  ['store'],
  // Each backend: its data migrations derive identifiers from records.
  ['store/sqlite', 'store/postgres'],
  ['store/open'],
  // The stages of a request and the use cases, each over the store roles it needs.
  ['auth', 'accounting', 'privacy', 'lookup', 'search', 'feed'],
  // Use cases over the lookups: a watchlist's entries are resolved as lookups.
  ['watchlists'],
  // Webhook delivery: what the change log owes each endpoint, signed and posted.
  ['webhooks'],
  // What the limits, and readiness, ask of the stages below.
  ['limits', 'readiness'],
  ['http'],
  ['openapi', 'ingest'],
  // The admin API's use cases: keys, usage series, audit search (its CSV through ingest's formula guard);
  // list jobs, matched by ingest's engine in the background.
  ['admin', 'lists'],
  // The synthetic generator, which reads and writes NDJSON as imports do.
  ['generate'],
  ['routes', 'demo'],
  ['app', 'metrics-app'],
  ['server'],
  ['cluster'],
  ['cli'],
];

/** Rooms only these may import, whatever their layers: a backend is chosen once, the generator run twice. */
const ONLY_FROM: Readonly<Record<string, readonly string[]>> = {
  'store/sqlite': ['store/open', 'cli'],
  'store/postgres': ['store/open', 'cli'],
  generate: ['demo', 'cli'],
};

/**
 * Imports that still run upward, each to be removed by the work named: the test fails once one is gone, so
 * that it is struck from here too.
 */
const PENDING: readonly string[] = [
  'config -> http', // the admission pipeline (issue 19)
];

const layerOf = new Map(LAYERS.flatMap((rooms, layer) => rooms.map((room) => [room, layer] as const)));

/** The room of a module of src/ (a path relative to it, as `store/sqlite/keys.ts`). */
function roomOf(path: string): string {
  const [top, next] = path.split('/');
  if (next === undefined) return top!.replace(/\.ts$/, '');
  if (top === 'store' && (next === 'sqlite' || next === 'postgres')) return `store/${next}`;
  if (top === 'store' && next === 'open.ts') return 'store/open';
  return top!;
}

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every import between two rooms, as `from -> to` with the files that make it. */
function roomImports(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of modules(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const from = relative(SRC, file);
      const to = relative(SRC, resolve(dirname(file), fileName)).replace(/\.js$/, '.ts');
      const edge = `${roomOf(from)} -> ${roomOf(to)}`;
      if (roomOf(from) !== roomOf(to)) found.set(edge, [...(found.get(edge) ?? []), `${from} imports ${to}`]);
    }
  }
  return found;
}

const imports = roomImports();

describe('imports between the rooms of src/', () => {
  it('know the layer of every room', () => {
    const rooms = new Set([...imports.keys()].flatMap((edge) => edge.split(' -> ')));
    for (const file of modules(SRC)) rooms.add(roomOf(relative(SRC, file)));
    expect([...rooms].filter((room) => !layerOf.has(room))).toEqual([]);
  });

  it('point down, to a lower layer', () => {
    const upward = [...imports]
      .filter(([edge]) => !PENDING.includes(edge))
      .filter(([edge]) => {
        const [from, to] = edge.split(' -> ') as [string, string];
        return layerOf.get(to)! >= layerOf.get(from)!;
      });
    expect(upward).toEqual([]);
  });

  it('reach a backend only where the store is opened, and the generator only where it is run', () => {
    const reaching = [...imports].filter(([edge]) => {
      const [from, to] = edge.split(' -> ') as [string, string];
      return ONLY_FROM[to] !== undefined && !ONLY_FROM[to].includes(from);
    });
    expect(reaching).toEqual([]);
  });

  it('still run upward only where the work that removes them is pending', () => {
    expect(PENDING.filter((edge) => !imports.has(edge))).toEqual([]);
  });

  it('find the imports the rule is about: static, type-only and dynamic', () => {
    expect(imports.get('store/open -> store/sqlite')).toEqual([
      'store/open.ts imports store/sqlite/store.ts',
    ]);
    expect(imports.get('search -> store')?.length).toBeGreaterThan(0);
  });
});
