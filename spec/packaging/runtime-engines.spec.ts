// The Node versions the package supports are the ones CI tests (.ci/node-versions), and are not quietly raised by
// what it loads: every package the router loads at run time accepts the oldest Node that the package and its
// peers (mongoose, express) accept.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const engines = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
/** NAME=value lines of .ci/node-versions. */
const tested = Object.fromEntries(
  readFileSync(path.join(ROOT, '.ci/node-versions'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => line.split('=') as [string, string]),
);

/** `x.y.z` as numbers, for comparing. */
const parts = (version: string) => version.split('.').map(Number);
const atLeast = (version: string, floor: string) => {
  const [a, b] = [parts(version), parts(floor)];
  const differing = a.findIndex((n, i) => n !== b[i]);
  return differing === -1 || a[differing] > b[differing];
};

it('says in engines.node what CI tests: from the oldest tested line on, every tested version within it', () => {
  const { NODE_NEWEST_LTS: newest, NODE_OLDEST: oldest } = tested;
  expect(newest).toMatch(/^\d+\.\d+\.\d+$/);
  expect(oldest).toMatch(/^\d+\.\d+\.\d+$/);
  const [oldestMajor, newestMajor] = [parts(oldest)[0], parts(newest)[0]];
  expect(oldestMajor).toBeLessThan(newestMajor);
  // Both are LTS lines (even majors).
  expect([oldestMajor % 2, newestMajor % 2]).toEqual([0, 0]);
  // A plain floor, the oldest tested line's.
  const floor = /^>=(\d+\.\d+\.\d+)$/.exec(engines)?.[1];
  expect(floor).toBeDefined();
  expect(parts(floor!)[0]).toBe(oldestMajor);
  expect(atLeast(oldest, floor!)).toBe(true);
  expect(atLeast(newest, floor!)).toBe(true);
});

/**
 * Loads lib/ in a fresh node (jiti compiles the TypeScript) and lists the packages whose `engines.node`
 * refuses the floor. Files are seen as they are read: jiti evaluates ES-module packages itself, outside
 * require.cache.
 */
const SCRIPT = `
  const fs = require('node:fs');
  const path = require('node:path');
  const read = fs.readFileSync;
  const packages = new Set();
  fs.readFileSync = function (file, ...rest) {
    const dir = typeof file === 'string' ? /^(.*\\/node_modules\\/(?:@[^/]+\\/)?[^/.][^/]*)\\//.exec(file)?.[1] : undefined;
    if (dir) packages.add(dir);
    return read.call(this, file, ...rest);
  };
  const semver = require('semver');
  const { createJiti } = require('jiti');
  const enginesOf = (dir) => JSON.parse(read(path.join(dir, 'package.json'), 'utf8'));
  const floorOf = (dir) => (enginesOf(dir).engines?.node ? semver.minVersion(enginesOf(dir).engines.node).version : '0.0.0');
  createJiti(path.join(process.cwd(), 'index.js')).import(path.join(process.cwd(), 'lib/index.ts')).then(() => {
    // The oldest Node a host can run the router on, its peers included.
    const floor = [process.cwd(), path.dirname(require.resolve('mongoose/package.json')), path.dirname(require.resolve('express/package.json'))]
      .map(floorOf)
      .reduce((a, b) => (semver.gt(a, b) ? a : b));
    const refusing = [...packages]
      .filter((dir) => !dir.endsWith('/jiti') && fs.existsSync(path.join(dir, 'package.json')))
      .map(enginesOf)
      .filter(({ engines }) => engines?.node && !semver.satisfies(floor, engines.node))
      .map(({ name, engines }) => name + ' (node ' + engines.node + ')');
    console.log(JSON.stringify({ floor, refusing: [...new Set(refusing)], packages: packages.size }));
  });`;

it('loads no package that refuses the oldest Node the package and its peers support', () => {
  const output = execFileSync(process.execPath, ['-e', SCRIPT], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const { floor, refusing, packages } = JSON.parse(output) as { floor: string; refusing: string[]; packages: number };
  expect(floor).toBe(/^>=(\d+\.\d+\.\d+)$/.exec(engines)?.[1]);
  // It does see what lib/ loads (express, mongoose, multer, file-type, ... and theirs).
  expect(packages).toBeGreaterThan(50);
  expect(refusing).toEqual([]);
});
