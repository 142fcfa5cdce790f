// The Node versions the package supports are not quietly raised by what it loads: every package the router
// loads at run time accepts the oldest Node that the package and its peers (mongoose, express) accept.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

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
  expect(floor).toMatch(/^20\./);
  // It does see what lib/ loads (express, mongoose, multer, file-type, ... and theirs).
  expect(packages).toBeGreaterThan(50);
  expect(refusing).toEqual([]);
});
