'use strict';
/**
 * Jest global teardown: drops every database of this run (a spec that failed before its own cleanup, or
 * that never had one, leaves no database behind), and stops the MongoMemoryReplSet if global-setup.js
 * started one. A run killed before this point is cleaned up by the next run's setup.
 */
const mongoose = require('mongoose');
const { dropRunDatabases } = require('./run-databases');

module.exports = async function globalTeardown() {
  const replSet = globalThis.__CR_MONGO_REPLSET__;
  if (replSet) {
    globalThis.__CR_MONGO_REPLSET__ = undefined;
    await replSet.stop({ doCleanup: true });
    return;
  }
  const uri = process.env.MONGODB_URI;
  if (!uri) return;
  const client = new mongoose.mongo.MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    await dropRunDatabases(client);
  } catch (err) {
    console.warn(`[test-db] could not drop this run's databases: ${err && err.message}`);
  } finally {
    await client.close().catch(() => undefined);
  }
};
