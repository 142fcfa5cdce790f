'use strict';
// Finds a MongoDB for the example app and the benchmark: MONGODB_URI when set, else a throwaway
// single-node replica set from mongodb-memory-server (downloads mongod on first use). When neither
// works, the caller prints `error.message`: one line that says what to do.

const HOW_TO =
  'set MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true to a running server, ' +
  'or run with internet access once so mongodb-memory-server can download mongod';

/** A failure to get a MongoDB; its message is the single line to print. */
class MongoStartError extends Error {
  constructor(reason, cause) {
    super(`Could not start MongoDB (${reason}): ${HOW_TO}`, { cause });
    this.name = 'MongoStartError';
  }
}

/** First line of an error message, without the stack, for the one-line failure. */
function shortReason(error) {
  const message = String((error && error.message) || error || 'unknown error');
  const lines = message.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.slice(0, 2).join(' ').slice(0, 160);
}

/**
 * Returns `{ uri, source, stop }`. `stop()` shuts down the memory server (a no-op for MONGODB_URI).
 * Throws MongoStartError when no server can be had.
 */
async function startMongo() {
  const fromEnv = process.env.MONGODB_URI;
  if (fromEnv) return { uri: fromEnv, source: 'MONGODB_URI', stop: async () => undefined };

  let MongoMemoryReplSet;
  try {
    ({ MongoMemoryReplSet } = require('mongodb-memory-server'));
  } catch (error) {
    throw new MongoStartError('MONGODB_URI is not set and mongodb-memory-server is not installed', error);
  }

  // mongodb-memory-server prints a multi-screen stack trace (console.warn) when it cannot download
  // or start mongod. Hold its warnings back: replay them on success, drop them on failure (the
  // single line below says what to do; DEBUG=MongoMS:* shows the details).
  const held = [];
  const warn = console.warn;
  console.warn = (...args) => held.push(args);
  let replSet;
  try {
    replSet = await MongoMemoryReplSet.create({ replSet: { count: 1 } });
  } catch (error) {
    const reason = error && typeof error.msg === 'string' && error.url ? `could not download mongod: ${error.msg}` : shortReason(error);
    throw new MongoStartError(`MONGODB_URI is not set and mongodb-memory-server failed: ${reason}`, error);
  } finally {
    console.warn = warn;
  }
  for (const args of held) console.warn(...args);
  return { uri: replSet.getUri(), source: 'mongodb-memory-server', stop: () => replSet.stop() };
}

/** Opens a NEW mongoose connection (never the global default) and waits until it is connected. */
async function connect(uri, dbName, extra = {}) {
  const mongoose = require('mongoose');
  const options = { serverSelectionTimeoutMS: 8000, ...extra };
  if (dbName) options.dbName = dbName;
  const connection = mongoose.createConnection(uri, options);
  try {
    return await connection.asPromise();
  } catch (error) {
    await connection.close(true).catch(() => undefined);
    throw new MongoStartError(`cannot connect to ${redact(uri)}: ${shortReason(error)}`, error);
  }
}

/** Hides a password in a connection string before it is printed. */
function redact(uri) {
  return String(uri).replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** The database named in the URI's path, or undefined (`mongodb://host/?x=y` names none). */
function dbNameInUri(uri) {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]*)/.exec(String(uri));
  const name = match ? decodeURIComponent(match[1]) : '';
  return name || undefined;
}

module.exports = { MongoStartError, startMongo, connect, redact, dbNameInUri };
