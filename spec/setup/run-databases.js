'use strict';
/**
 * The databases of one test run. Every database a spec opens is named
 * `<prefix>_<host>_<pid>_<kind>_<worker>_<random>` (spec/helpers/test-db.ts):
 *
 * - `<prefix>` is TEST_DB_PREFIX (default `cr`): runs sharing a server can use their own;
 * - `<host>_<pid>` is the run: a tag of this machine's hostname and the pid of the jest process that ran the
 *   global setup. A run killed part-way never runs its teardown; the next run on the same machine with the
 *   same prefix finds that pid gone and drops what it left. A database of a live run (its pid is there) or
 *   of another machine's run (whose pids cannot be checked from here) is never dropped.
 *
 * Plain CommonJS: used by the global setup and teardown (plain JS) and by test-db.ts.
 */
const crypto = require('node:crypto');
const os = require('node:os');

const PREFIX_ENV = 'TEST_DB_PREFIX';
const RUN_ENV = 'TEST_DB_RUN';
const DEFAULT_PREFIX = 'cr';

/** TEST_DB_PREFIX, checked: it starts database names, which MongoDB limits to 63 bytes without `/\. "$*<>:|?`. */
function runPrefix(env = process.env) {
  const prefix = env[PREFIX_ENV] || DEFAULT_PREFIX;
  if (!/^[A-Za-z0-9-]{1,20}$/.test(prefix)) {
    throw new Error(`${PREFIX_ENV}=${JSON.stringify(prefix)}: use 1 to 20 letters, digits or dashes`);
  }
  return prefix;
}

/** Six hex digits of this machine's hostname. */
function hostTag() {
  return crypto.createHash('sha256').update(os.hostname()).digest('hex').slice(0, 6);
}

/** A run's id, `<host>_<pid>`: of the process `pid` on this machine. */
function runIdOf(pid) {
  return `${hostTag()}_${pid}`;
}

/** This run's id: set by the global setup (TEST_DB_RUN), else (a spec run without it) this process's. */
function runId(env = process.env) {
  return /^[0-9a-f]{6}_\d+$/.test(env[RUN_ENV] || '') ? env[RUN_ENV] : runIdOf(process.pid);
}

/** The start of every database name of the run `run` (this run's by default). */
function runStem(run = runId(), prefix = runPrefix()) {
  return `${prefix}_${run}_`;
}

/** Whether a process with this pid runs on this machine. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM'; // another user's process: alive
  }
}

/**
 * The names among `names` that runs of this machine with this prefix left behind: their process is gone.
 * This run's own, live runs', other machines' and other prefixes' are kept.
 */
function leftoverDatabases(names, prefix = runPrefix(), self = runId()) {
  const pattern = new RegExp(`^${prefix}_([0-9a-f]{6})_(\\d+)_`);
  const host = hostTag();
  return names.filter((name) => {
    const match = pattern.exec(name);
    return !!match && match[1] === host && `${match[1]}_${match[2]}` !== self && !alive(Number(match[2]));
  });
}

async function dropPicked(client, pick) {
  const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
  const names = pick(databases.map((d) => d.name));
  await Promise.all(names.map((name) => client.db(name).dropDatabase().catch(() => undefined)));
  return names;
}

/** Drops the databases killed runs left (leftoverDatabases); returns their names. */
function dropLeftovers(client, prefix = runPrefix(), self = runId()) {
  return dropPicked(client, (names) => leftoverDatabases(names, prefix, self));
}

/** Drops every database of the run `run` (this one by default); returns their names. */
function dropRunDatabases(client, run = runId(), prefix = runPrefix()) {
  const stem = runStem(run, prefix);
  return dropPicked(client, (names) => names.filter((name) => name.startsWith(stem)));
}

module.exports = { PREFIX_ENV, RUN_ENV, runPrefix, runIdOf, runId, runStem, leftoverDatabases, dropLeftovers, dropRunDatabases };
