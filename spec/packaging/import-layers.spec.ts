// lib/ keeps its layers (docs/architecture.md): imports run only downwards, no feature folder imports
// another, and no module imports itself back through others. Imports are read with TypeScript's own
// pre-processor, type-only imports included: a type circle ties modules together as much as a value one.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const LIB = path.resolve(__dirname, '../../lib');

/** The core layers, lowest first: a unit may import only units of a lower rank (or itself). */
const CORE: Record<string, number> = { 'errors.ts': 0, util: 1, config: 2, schema: 3, query: 4, changes: 5, operations: 6, local: 7, http: 8 };
/** Every other folder is a feature, one rank above the core. */
const FEATURE_RANK = 9;
/** Entry points compose features: the factory, the package's index, the bin and its command. */
const ENTRIES = new Set(['content-router.ts', 'index.ts', 'cli.ts', 'types-cli']);
const ENTRY_RANK = 10;
/** Ambient declarations only (`declare module`): nothing imports them by path. */
const IGNORED = new Set(['types']);

/** A module's unit: its folder under lib/, or the file itself for lib/*.ts. */
function unitOf(file: string): string {
  return path.relative(LIB, file).split(path.sep)[0];
}

function rankOf(unit: string): number {
  if (ENTRIES.has(unit)) return ENTRY_RANK;
  return CORE[unit] ?? FEATURE_RANK;
}

function libFiles(dir = LIB): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return IGNORED.has(entry.name) && dir === LIB ? [] : libFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The lib/ files a module imports (relative specifiers only: packages are not layers). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => {
      const base = path.resolve(path.dirname(file), spec);
      const found = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
      if (!found) throw new Error(`${path.relative(LIB, file)}: cannot resolve "${spec}"`);
      return found;
    });
}

const graph = new Map(libFiles().map((file) => [file, importsOf(file)]));
const name = (file: string) => path.relative(LIB, file);

/** Every import that crosses units, as `from -> to` lines. */
function crossings(): { from: string; to: string; fromUnit: string; toUnit: string }[] {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => unitOf(to) !== unitOf(from)).map((to) => ({ from: name(from), to: name(to), fromUnit: unitOf(from), toUnit: unitOf(to) })),
  );
}

/** The import circles among lib/ modules, each as the path that closes it (a -> b -> a). */
function circles(): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].map(name).join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('lib/ import layers', () => {
  it('reads a known set of modules', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.has(path.join(LIB, 'operations/runtime.ts'))).toBe(true);
  });

  it('no feature folder imports another feature folder', () => {
    const between = crossings().filter((c) => rankOf(c.fromUnit) === FEATURE_RANK && rankOf(c.toUnit) === FEATURE_RANK);
    expect(between.map((c) => `${c.from} -> ${c.to}`)).toEqual([]);
  });

  it('every import runs down the layers: the core never imports a feature or an entry point, nor a layer above it', () => {
    const upward = crossings().filter((c) => {
      const from = rankOf(c.fromUnit);
      const to = rankOf(c.toUnit);
      // Entry points may use one another (cli.ts runs types-cli); features among themselves are checked above.
      if (from === ENTRY_RANK) return false;
      return from === FEATURE_RANK ? to === ENTRY_RANK : to >= from;
    });
    expect(upward.map((c) => `${c.from} -> ${c.to}`)).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles()).toEqual([]);
  });
});
