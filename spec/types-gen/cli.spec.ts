// The content-router bin, spawned as a user runs it (lib/cli.ts through jiti, as dist/cli.js after a build):
// config modules in each format, the file it writes, and one clear line with a non-zero exit for bad input.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
// jiti's own bin runs the TypeScript entry as node would run the built one.
const JITI_CLI = join(ROOT, 'node_modules/jiti/lib/jiti-cli.mjs');
// Each run starts node and transpiles lib/ (cached after the first), several seconds on a busy machine.
jest.setTimeout(60000);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cr-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [JITI_CLI, join(ROOT, 'lib/cli.ts'), ...args],
      // Transpile cache in the temp dir, not in the shared node_modules.
      { cwd: dir, env: { ...process.env, JITI_FS_CACHE: join(dir, '.jiti') }, timeout: 60000 },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// An unreachable database: loading the config must not try it (nor build a router).
const COLLECTIONS = "db: { uri: 'mongodb://127.0.0.1:1/never' }, collections: [{ slug: 'posts', fields: { title: { type: 'text', required: true } } }]";

it('ships as the package bin with a node shebang', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.bin).toEqual({ 'content-router': 'dist/cli.js' });
  expect(readFileSync(join(ROOT, 'lib/cli.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
});

it('loads .ts (default export), .mjs (config export) and .cjs configs and writes the types', async () => {
  const ts = file('a.config.ts', `const fields: Record<string, { type: 'text' }> = { name: { type: 'text' } };\nexport default { ${COLLECTIONS}, globals: [{ slug: 'site', fields }] };\n`);
  const mjs = file('b.config.mjs', `export const config = { ${COLLECTIONS}, endpoints: [{ path: '/contact', method: 'post', handler: () => 1, schema: { name: 'ContactForm', body: { properties: { msg: { type: 'string' } } } } }] };\n`);
  const cjs = file('c.config.cjs', `module.exports = { ${COLLECTIONS} };\n`);
  const [a, b, c] = await Promise.all([
    run('generate:types', '--config', ts, '--out', join(dir, 'out/a.ts')),
    run('generate:types', '--config', mjs, '--out', join(dir, 'out/b.ts')),
    run('generate:types', '--config', cjs),
  ]);
  expect(a).toMatchObject({ code: 0, stdout: '' });
  expect(a.stderr).toBe(`content-router: wrote ${join('out', 'a.ts')}\n`);
  const aTypes = readFileSync(join(dir, 'out/a.ts'), 'utf8');
  expect(aTypes).toContain('export interface Post {');
  expect(aTypes).toContain('export interface SiteUpdate {');
  expect(b.code).toBe(0);
  expect(readFileSync(join(dir, 'out/b.ts'), 'utf8')).toContain('export interface ContactForm {\n  msg?: string;\n}');
  // Without --out the file goes to stdout.
  expect(c).toMatchObject({ code: 0, stderr: '' });
  expect(c.stdout).toContain('export interface PostCreate {\n  title: string;\n}');
});

it.each<[string, () => string[], RegExp]>([
  ['a missing config file', () => ['--config', join(dir, 'nope.config.js')], /^content-router generate:types: config file not found: .*nope\.config\.js$/],
  ['a config with a syntax error', () => ['--config', file('broken.config.js', 'module.exports = {\n')], /^content-router generate:types: could not load .*broken\.config\.js: .+$/],
  ['a config that throws', () => ['--config', file('throws.config.js', "throw new Error('JWT_SECRET is missing');\n")], /^content-router generate:types: could not load .*throws\.config\.js: JWT_SECRET is missing$/],
  ['a module without a config', () => ['--config', file('none.config.mjs', 'export const other = 1;\n')], /has no default export \(or "config" export\)/],
  ['an invalid config', () => ['--config', file('bad.config.cjs', "module.exports = { collections: [{ slug: 'Bad Slug', fields: {} }] };\n")], /^content-router generate:types: invalid config in .*: collections\[0\]\.slug: must match/],
  ['two types with one name', () => ['--config', file('clash.config.cjs', "module.exports = { collections: [{ slug: 'post', fields: {} }, { slug: 'posts', fields: {} }] };\n")], /two generated types would be named "Post": collection "post" and collection "posts"$/],
])('exits 1 with one line for %s', async (_name, args, line) => {
  const result = await run('generate:types', ...args());
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});

it('exits 2 with the usage for a missing --config or an unknown command', async () => {
  const [noConfig, unknown] = await Promise.all([run('generate:types'), run('generate:typez', '--config', 'x.js')]);
  expect(noConfig.code).toBe(2);
  expect(noConfig.stderr).toContain('--config is required');
  expect(noConfig.stderr).toContain('usage: content-router generate:types --config');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown command "generate:typez"');
});
