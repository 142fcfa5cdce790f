'use strict';
/**
 * Jest global setup of the integration project: one MongoDB server for the whole run.
 *
 * - MONGODB_URI set (CI: .ci/run starts mongo-java-server): verify it answers a ping.
 * - otherwise: start a single-node MongoMemoryReplSet (wiredTiger) from mongodb-memory-server.
 * - neither works: fail fast with one line saying how to provide a server.
 *
 * Either way process.env.MONGODB_URI is set for the workers (they inherit this process's
 * environment), and the server's capabilities are probed once and passed on in
 * process.env.TEST_DB_CAPABILITIES (JSON) so specs can skip unsupported features at
 * registration time (see spec/helpers/test-db.ts).
 *
 * The run gets its id (TEST_DB_RUN: the databases it creates are named after it, see run-databases.js), and
 * the databases that killed runs of the same TEST_DB_PREFIX left on the server are dropped first.
 */
const net = require('node:net');
const mongoose = require('mongoose');
const { probeCapabilities, CAPABILITIES_ENV } = require('./capabilities');
const { RUN_ENV, dropLeftovers, runIdOf, runPrefix, runStem } = require('./run-databases');
const DOWNLOAD_PROBE_MS = 5000;

const HOW_TO =
  'content-router tests need MongoDB: set MONGODB_URI=mongodb://host:port/ (a replica set for change-stream tests), ' +
  'or let mongodb-memory-server download mongod (needs internet; MONGOMS_SYSTEM_BINARY names a local one); ' +
  '`bash .ci/run` starts an offline server, ' +
  '`npm run test:unit` needs none.';

function redact(uri) {
  return uri.replace(/\/\/[^@/]*@/, '//<credentials>@');
}

function oneLine(text) {
  return String(text).replace(/\s+/g, ' ').trim();
}

/**
 * An error jest shows as exactly `line`: it prints a failed global setup's `stack`, and a trace
 * through this file (or a library's) only buries what the reader has to do.
 */
function setupError(line) {
  const err = new Error(line);
  err.stack = line;
  err.isSetupError = true;
  return err;
}

/**
 * Why the mongod download cannot start, or undefined if it may. mongodb-memory-server retries
 * each attempt after a 60 s inactivity timeout, so a firewalled machine would sit for minutes
 * before failing; a plain TCP connect answers in seconds. Skipped behind a proxy, which the
 * download goes through and this probe would not, and when downloads are turned off.
 */
function downloadBlocked() {
  const env = process.env;
  const proxy = [
    'yarn_https-proxy', 'yarn_proxy', 'npm_config_https-proxy', 'npm_config_https_proxy', 'npm_config_proxy',
    'https_proxy', 'http_proxy', 'HTTPS_PROXY', 'HTTP_PROXY',
  ];
  if (proxy.some((name) => env[name])) return Promise.resolve(undefined);
  if (/^(0|false|no|off)$/i.test(env.MONGOMS_RUNTIME_DOWNLOAD || '')) return Promise.resolve(undefined);
  let url;
  try {
    url = new URL(env.MONGOMS_DOWNLOAD_URL || env.MONGOMS_DOWNLOAD_MIRROR || 'https://fastdl.mongodb.org');
  } catch {
    return Promise.resolve(undefined); // mongodb-memory-server reports a bad URL better than we can
  }
  const http = url.protocol === 'http:' || /^(1|true|yes|on)$/i.test(env.MONGOMS_USE_HTTP || '');
  const port = Number(url.port) || (http ? 80 : 443);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port });
    const done = (reason) => {
      socket.destroy();
      resolve(reason && `cannot reach ${url.hostname}:${port} to download mongod (${reason})`);
    };
    socket.setTimeout(DOWNLOAD_PROBE_MS, () => done(`no answer within ${DOWNLOAD_PROBE_MS / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err) => done(err.code || err.message));
  });
}

async function startMemoryReplSet() {
  let mms;
  try {
    mms = require('mongodb-memory-server');
  } catch (err) {
    throw setupError(`${HOW_TO} (MONGODB_URI is not set and mongodb-memory-server cannot be loaded: ${oneLine(err.message)})`);
  }
  try {
    const { DryMongoBinary, MongoBinary, MongoMemoryReplSet } = mms;
    if (!(await DryMongoBinary.locateBinary(await DryMongoBinary.generateOptions()))) {
      const blocked = await downloadBlocked();
      if (blocked) throw setupError(`${HOW_TO} (MONGODB_URI is not set and ${blocked})`);
    }
    // Fetch the binary before create(): create() prints any failure in full before rethrowing it.
    await MongoBinary.getPath();
    return await MongoMemoryReplSet.create({ replSet: { count: 1, storageEngine: 'wiredTiger' } });
  } catch (err) {
    if (err && err.isSetupError) throw err;
    throw setupError(`${HOW_TO} (MONGODB_URI is not set and mongodb-memory-server failed: ${oneLine(err && err.message)})`);
  }
}

module.exports = async function globalSetup() {
  try {
    runPrefix();
  } catch (err) {
    throw setupError(err.message);
  }
  // Workers inherit this process's environment: every database of the run is named after this process.
  process.env[RUN_ENV] = runIdOf(process.pid);
  const probeDb = `${runStem()}probe`;
  const given = process.env.MONGODB_URI;
  let uri = given;
  if (!uri) {
    const replSet = await startMemoryReplSet();
    globalThis.__CR_MONGO_REPLSET__ = replSet;
    uri = replSet.getUri();
    process.env.MONGODB_URI = uri;
  }

  const client = new mongoose.mongo.MongoClient(uri, { serverSelectionTimeoutMS: 10000 });
  try {
    try {
      await client.connect();
      await client.db('admin').command({ ping: 1 });
    } catch (err) {
      throw setupError(
        `content-router tests need MongoDB, but MONGODB_URI=${redact(uri)} ${given ? '(from the environment) ' : ''}` +
          `does not answer a ping: ${oneLine(err.message)}`,
      );
    }
    const leftovers = await dropLeftovers(client).catch(() => []);
    if (leftovers.length && process.env.TEST_DB_VERBOSE) console.warn(`[test-db] dropped ${leftovers.length} databases of killed runs: ${leftovers.join(', ')}`);
    const caps = await probeCapabilities(client, client.db(probeDb), {
      onFailure: (feature, err) => {
        if (process.env.TEST_DB_VERBOSE) console.warn(`[test-db] ${feature} unsupported: ${err && err.message}`);
      },
    });
    await client.db(probeDb).dropDatabase().catch(() => undefined);
    // A probe that times out on a loaded machine would silently skip whole suites: where the server is
    // known to have a feature (CI names what its server has), a missing one stops the run instead.
    const expected = (process.env.TEST_DB_EXPECT || '').split(',').filter(Boolean);
    const missing = expected.filter((feature) => caps[feature] !== true);
    if (missing.length) {
      throw setupError(`TEST_DB_EXPECT names ${missing.join(', ')}, but the probe of ${redact(uri)} found none: the server is too slow to answer the probe, or lacks it`);
    }
    process.env[CAPABILITIES_ENV] = JSON.stringify(caps);
    console.log(
      `\n[test-db] ${given ? 'using' : 'started'} ${redact(uri)}; capabilities: ` +
        Object.entries(caps)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
    );
  } catch (err) {
    if (globalThis.__CR_MONGO_REPLSET__) {
      await globalThis.__CR_MONGO_REPLSET__.stop().catch(() => undefined);
      globalThis.__CR_MONGO_REPLSET__ = undefined;
    }
    throw err;
  } finally {
    await client.close().catch(() => undefined);
  }
};
