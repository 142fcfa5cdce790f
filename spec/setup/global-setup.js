'use strict';
/**
 * Jest global setup: one MongoDB server for the whole run.
 *
 * - MONGODB_URI set (CI: .ci/run starts mongo-java-server): verify it answers a ping.
 * - otherwise: start a single-node MongoMemoryReplSet (wiredTiger) from mongodb-memory-server.
 *
 * Either way process.env.MONGODB_URI is set for the workers (they inherit this process's
 * environment), and the server's capabilities are probed once and passed on in
 * process.env.TEST_DB_CAPABILITIES (JSON) so specs can skip unsupported features at
 * registration time (see spec/helpers/test-db.ts).
 */
const mongoose = require('mongoose');
const { probeCapabilities, CAPABILITIES_ENV } = require('./capabilities');

const PROBE_DB = 'cr_global_setup_probe';

function redact(uri) {
  return uri.replace(/\/\/[^@/]*@/, '//<credentials>@');
}

async function startMemoryReplSet() {
  let MongoMemoryReplSet;
  try {
    ({ MongoMemoryReplSet } = require('mongodb-memory-server'));
  } catch (err) {
    throw new Error(`MONGODB_URI is not set and mongodb-memory-server cannot be loaded: ${err.message}`);
  }
  try {
    return await MongoMemoryReplSet.create({ replSet: { count: 1, storageEngine: 'wiredTiger' } });
  } catch (err) {
    throw new Error(
      'MONGODB_URI is not set and mongodb-memory-server could not start a replica set ' +
        `(it needs a mongod binary, downloaded on first use): ${err.message}\n` +
        'Either point MONGODB_URI at a running server (e.g. mongodb://127.0.0.1:27017/?directConnection=true; ' +
        '.ci/run starts one) or make a mongod binary available (MONGOMS_SYSTEM_BINARY).',
    );
  }
}

module.exports = async function globalSetup() {
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
      throw new Error(
        `MongoDB at MONGODB_URI=${redact(uri)} ${given ? '(from the environment) ' : ''}does not answer a ping: ${err.message}`,
      );
    }
    const caps = await probeCapabilities(client, client.db(PROBE_DB), {
      onFailure: (feature, err) => {
        if (process.env.TEST_DB_VERBOSE) console.warn(`[test-db] ${feature} unsupported: ${err && err.message}`);
      },
    });
    await client.db(PROBE_DB).dropDatabase().catch(() => undefined);
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
