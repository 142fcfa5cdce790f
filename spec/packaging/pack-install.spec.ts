// The package as users get it: `npm pack` (which builds through prepack), install the tarball into
// a host project that has only what a host has (the package's dependencies, express, mongoose, their
// types and TypeScript), serve a request from it through both `require` and ESM `import`, and compile a
// strict TypeScript host (skipLibCheck off) against its public declarations.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { testDbUri, uniqueDbName } from '../helpers/test-db';

const run = promisify(execFile);

const ROOT = resolve(__dirname, '../..');
const HOSTS = join(__dirname, 'host');

// Packing runs a clean TypeScript build first; the two host runs each start node and a server.
jest.setTimeout(180_000);

interface HostOutput {
  moduleSystem: string;
  resolved: string;
  typeofContentRouter: string;
  typeofDefineConfig: string;
  create: { status: number; body: Record<string, unknown> };
  list: { status: number; body: { data: Array<Record<string, unknown>>; meta: Record<string, unknown> } };
}

let workDir = '';
let hostDir = '';
let packedFiles: string[] = [];

/** What a host installs besides the package (and, through npm, the package's own dependencies). */
const HOST_PACKAGES = ['express', 'mongoose', '@types/express', '@types/node', 'typescript'];

interface PackageJson {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  types?: string;
  typings?: string;
}

const readPackage = (dir: string): PackageJson => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;

/**
 * The top-level entries of `modules` that installing `roots` brings: each package and what it depends on,
 * resolved the way Node does (a nested copy first, then up to `modules`). Peers count when they are installed.
 */
function installedClosure(modules: string, roots: readonly string[]): Set<string> {
  const top = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string, from: string) => {
    let dir = from;
    let found: string | undefined;
    // Up from the requiring package's folder, never above the repo's node_modules.
    for (;;) {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) {
        found = candidate;
        break;
      }
      if (dir === dirname(modules) || dir === dirname(dir)) break;
      dir = dirname(dir);
    }
    if (!found || seen.has(found)) return;
    seen.add(found);
    if (dirname(found) === modules || dirname(dirname(found)) === modules) top.add(relative(modules, found));
    const pkg = readPackage(found);
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies })) visit(dep, found);
  };
  for (const name of roots) visit(name, dirname(modules));
  return top;
}

beforeAll(async () => {
  // Real path, so the module paths the hosts report compare equal even where tmpdir is a symlink.
  workDir = realpathSync(mkdtempSync(join(tmpdir(), 'content-router-pack-')));
  const packDir = join(workDir, 'pack');
  mkdirSync(packDir);
  await run('npm', ['pack', '--pack-destination', packDir], { cwd: ROOT, timeout: 150_000 });
  const tarballs = readdirSync(packDir).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`expected one tarball, found ${tarballs.join(', ') || 'none'}`);
  const tarball = join(packDir, tarballs[0]);
  const { stdout } = await run('tar', ['-tzf', tarball]);
  packedFiles = stdout.split('\n').filter(Boolean);

  hostDir = join(workDir, 'host');
  const modules = join(hostDir, 'node_modules');
  const installed = join(modules, 'content-router');
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(hostDir, 'package.json'), JSON.stringify({ name: 'host', private: true }));
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  // `npm install <tarball>` would fetch every dependency and peer from the registry: CI could, but
  // it is slow and fails offline. The repo's node_modules already holds them all, so what a host would
  // get is linked in instead: the package's dependencies and the host's own packages, each with its
  // dependencies, and nothing else (no devDependency, no @types/* the package only builds with). The
  // package itself is the extracted tarball, never the repo's sources.
  const repoModules = realpathSync(join(ROOT, 'node_modules'));
  const roots = [...Object.keys(readPackage(installed).dependencies ?? {}), ...HOST_PACKAGES];
  for (const name of installedClosure(repoModules, roots)) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(repoModules, name), join(modules, name), 'dir');
  }
  for (const file of ['host.cjs', 'host.mjs', 'host.ts', 'tsconfig.json']) cpSync(join(HOSTS, file), join(hostDir, file));
});

afterAll(() => {
  // Removes the links, not what they point at: rmSync does not follow symlinks.
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

async function runHost(file: string): Promise<HostOutput> {
  const env = { ...process.env, MONGODB_URI: testDbUri(), HOST_DB_NAME: uniqueDbName('pack') };
  const { stdout } = await run(process.execPath, [file], { cwd: hostDir, env, timeout: 60_000 });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]) as HostOutput;
}

function expectServed(output: HostOutput, title: string): void {
  expect(output.typeofContentRouter).toBe('function');
  expect(output.typeofDefineConfig).toBe('function');
  expect(output.create.status).toBe(201);
  expect(output.create.body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{24}$/), title });
  expect(output.list.status).toBe(200);
  expect(output.list.body.data).toEqual([output.create.body]);
  expect(output.list.body.meta).toMatchObject({ total: 1, page: 1 });
}

describe('the packed tarball', () => {
  it('holds the build, LICENSE, README and CHANGELOG', () => {
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'LICENSE', 'README.md', 'CHANGELOG.md', 'package.json']) {
      expect(packedFiles).toContain(`package/${file}`);
    }
  });

  it('holds no sources, specs or CI files', () => {
    const stray = packedFiles.filter((file) => /^package\/(spec|lib|\.ci|bench|example-app|node_modules)\//.test(file));
    expect(stray).toEqual([]);
  });

  it('ships no source maps: they would point at sources the tarball does not hold', () => {
    expect(packedFiles.filter((file) => file.endsWith('.map'))).toEqual([]);
    const dist = join(hostDir, 'node_modules', 'content-router', 'dist');
    const mapped = packedFiles
      .filter((file) => /^package\/dist\/.*\.(?:js|d\.ts)$/.test(file))
      .filter((file) => readFileSync(join(dist, file.slice('package/dist/'.length)), 'utf8').includes('sourceMappingURL='));
    expect(mapped).toEqual([]);
  });

  it('declares nothing that needs a package a host lacks: the public declarations import only Node, the peers and typed dependencies', () => {
    const dist = join(hostDir, 'node_modules', 'content-router', 'dist');
    const pkg = readPackage(join(dist, '..'));
    const builtins = new Set(builtinModules);
    // A package's own name from a specifier: `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`.
    const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
    const shipsTypes = (name: string) => {
      const dir = join(hostDir, 'node_modules', name);
      const own = readPackage(dir);
      return Boolean(own.types ?? own.typings) || existsSync(join(dir, 'index.d.ts'));
    };
    const allowed = (name: string) =>
      name.startsWith('node:') ||
      builtins.has(name) ||
      // Peers: the host installs them, and their types (express's come from @types/express).
      name in (pkg.peerDependencies ?? {}) ||
      (name in (pkg.dependencies ?? {}) && shipsTypes(name));
    const offenders: string[] = [];
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      // Comments left out: prose such as 'from "server code"' in a JSDoc is no import.
      const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
      for (const match of text.matchAll(/(?:from\s+|import\(\s*)['"]([^'"]+)['"]|reference types="([^"]+)"/g)) {
        const specifier = match[1] ?? match[2];
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier);
          visit(existsSync(`${target}.d.ts`) ? `${target}.d.ts` : join(target, 'index.d.ts'));
        } else if (!allowed(packageOf(specifier))) {
          offenders.push(`${relative(dist, file)} imports ${specifier}`);
        }
      }
    };
    visit(join(dist, 'index.d.ts'));
    expect(seen.size).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
  });
});

describe('a host project with the tarball installed', () => {
  it('serves requests from a CommonJS app (require)', async () => {
    const output = await runHost('host.cjs');
    expect(output.moduleSystem).toBe('cjs');
    expect(output.resolved).toBe(join(hostDir, 'node_modules', 'content-router', 'dist', 'index.js'));
    expectServed(output, 'Hello from CommonJS');
  });

  it('has only what a host installs: no devDependency, no @types/* the package builds with', () => {
    const modules = join(hostDir, 'node_modules');
    expect(readdirSync(join(modules, '@types')).sort()).toEqual(expect.arrayContaining(['express', 'node']));
    for (const absent of ['@types/jsonwebtoken', '@types/passport', '@types/passport-jwt', '@types/swagger-ui-express', '@types/ws', 'jest', 'supertest']) {
      expect({ absent, present: existsSync(join(modules, absent)) }).toEqual({ absent, present: false });
    }
  });

  it('compiles a strict TypeScript host (skipLibCheck off) that uses the whole public API', async () => {
    const tsc = join(hostDir, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: hostDir, timeout: 120_000 }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    expect(result).toEqual({ code: 0, output: '' });
  });

  it('serves requests from an ES-module app (named imports from the CommonJS build)', async () => {
    const output = await runHost('host.mjs');
    expect(output.moduleSystem).toBe('esm');
    expect(fileURLToPath(output.resolved)).toBe(join(hostDir, 'node_modules', 'content-router', 'dist', 'index.js'));
    expectServed(output, 'Hello from ESM');
  });
});
