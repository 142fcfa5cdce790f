// The package as users get it: `npm pack` (which builds through prepack), install the tarball into
// an empty host project, and serve a request from it through both `require` and ESM `import`.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
  // it is slow and fails offline. The repo's node_modules already holds them all, so each entry is
  // linked in instead; the package itself is the extracted tarball, never the repo's sources.
  const repoModules = realpathSync(join(ROOT, 'node_modules'));
  for (const name of readdirSync(repoModules)) {
    if (name.startsWith('.') || name === 'content-router') continue;
    symlinkSync(join(repoModules, name), join(modules, name), 'dir');
  }
  cpSync(join(HOSTS, 'host.cjs'), join(hostDir, 'host.cjs'));
  cpSync(join(HOSTS, 'host.mjs'), join(hostDir, 'host.mjs'));
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
});

describe('a host project with the tarball installed', () => {
  it('serves requests from a CommonJS app (require)', async () => {
    const output = await runHost('host.cjs');
    expect(output.moduleSystem).toBe('cjs');
    expect(output.resolved).toBe(join(hostDir, 'node_modules', 'content-router', 'dist', 'index.js'));
    expectServed(output, 'Hello from CommonJS');
  });

  it('serves requests from an ES-module app (named imports from the CommonJS build)', async () => {
    const output = await runHost('host.mjs');
    expect(output.moduleSystem).toBe('esm');
    expect(fileURLToPath(output.resolved)).toBe(join(hostDir, 'node_modules', 'content-router', 'dist', 'index.js'));
    expectServed(output, 'Hello from ESM');
  });
});
