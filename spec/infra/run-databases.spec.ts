// The databases of a test run: named after TEST_DB_PREFIX and the run, so that a run's setup drops what a
// killed run left on a shared server, and never a live run's (spec/setup/run-databases.js).
import { spawn, spawnSync } from 'node:child_process';
import mongoose from 'mongoose';

import { testDbUri, uniqueDbName } from '../helpers/test-db';
import { dropLeftovers, dropRunDatabases, runId, runIdOf, runPrefix } from '../setup/run-databases';

const client = new mongoose.mongo.MongoClient(testDbUri());
const names = async () => (await client.db('admin').admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name);
const create = (name: string) => client.db(name).collection('things').insertOne({ left: true });

/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

beforeAll(() => client.connect());
afterAll(() => client.close());

describe('the databases of a test run', () => {
  it('are named <TEST_DB_PREFIX>_<host>_<pid>_<kind>_<worker>_<random>, the pid the jest process that ran the setup', () => {
    // A jest worker's parent is the run's process; in band, the run's process is this one.
    expect([runIdOf(process.ppid), runIdOf(process.pid)]).toContain(process.env.TEST_DB_RUN);
    expect(runId()).toBe(process.env.TEST_DB_RUN);
    expect(runPrefix()).toBe(process.env.TEST_DB_PREFIX || 'cr');
    const escaped = `${runPrefix()}_${runId()}`;
    expect(uniqueDbName()).toMatch(new RegExp(`^${escaped}_db_\\d+_[0-9a-f]{12}$`));
    expect(uniqueDbName('outage')).toMatch(new RegExp(`^${escaped}_outage_\\d+_[0-9a-f]{12}$`));
  });

  it('a run drops what killed runs of its prefix left, and keeps those of live runs, its own, and other prefixes and machines', async () => {
    const prefix = runPrefix();
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const dead = runIdOf(deadPid());
      const otherMachine = `${runId().startsWith('000000') ? 'ffffff' : '000000'}_${dead.split('_')[1]}`;
      const kept = [
        `${prefix}_${runIdOf(live.pid!)}_db_1_${Date.now()}`,
        `${prefix}_${runId()}_db_1_${Date.now()}`,
        `x${prefix}_${dead}_db_1_${Date.now()}`,
        `${prefix}_${otherMachine}_db_1_${Date.now()}`,
        `${prefix}_1_0123456789ab`,
      ];
      const dropped = [`${prefix}_${dead}_db_1_${Date.now()}`, `${prefix}_${dead}_outage_2_${Date.now()}`];
      for (const name of [...kept, ...dropped]) await create(name);
      try {
        expect((await dropLeftovers(client)).sort()).toEqual(expect.arrayContaining(dropped.sort()));
        const after = await names();
        for (const name of dropped) expect(after).not.toContain(name);
        for (const name of kept) expect(after).toContain(name);
      } finally {
        await Promise.all(kept.map((name) => client.db(name).dropDatabase()));
      }
    } finally {
      live.kill();
    }
  });

  it("a run's teardown drops every database of the run, and none of another's", async () => {
    const prefix = runPrefix();
    const ended = runIdOf(deadPid());
    const other = `${prefix}_${runIdOf(deadPid())}_db_1_${Date.now()}`;
    const ours = [`${prefix}_${ended}_db_1_${Date.now()}`, `${prefix}_${ended}_probe`];
    for (const name of [...ours, other]) await create(name);
    try {
      expect((await dropRunDatabases(client, ended)).sort()).toEqual(ours.sort());
      const after = await names();
      for (const name of ours) expect(after).not.toContain(name);
      expect(after).toContain(other);
    } finally {
      await client.db(other).dropDatabase();
    }
  });
});
