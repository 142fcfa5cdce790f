'use strict';
// Bulk writes by where: the router's `PATCH /<slug>?where={}` setting one field on every one of N records
// (N = core.api.maxBulk's default, 1000), over HTTP, against what a developer would write by hand in the
// same process on the same collection: one Mongoose `updateMany` plus one `find` of those records. The
// goal is the router at most 3x the baseline's time. Also measured:
//   - the same on a collection with one trivial `beforeChange` hook (each record prepared on its own);
//   - a bulk soft `DELETE /<slug>?where={}` against one `find` plus one `updateMany` stamping `deletedAt`
//     (a soft delete is an update; a permanent one would have to be seeded again every round);
//   - for scale, a client loop of N single `PATCH /<slug>/:id` (and single soft DELETEs), one at a time.
// Before measuring, each side's answer and the stored records are checked: every record written, none failed.
// Sides alternate round by round (which goes first too); reported: median ms per side, the ratios of medians,
// and this process's CPU per side (the router, the driver and the baseline run here; the database does not).
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true node bench/bulk.js
//
// Knobs (env): BENCH_BULK_RECORDS=1000  BENCH_BULK_ROUNDS=5  BENCH_BULK_LOOP_ROUNDS=1 (0 skips the loops)
//              BENCH_BULK_CASES=update,update-hooked,soft-delete (all by default).
// Run by `npm run bench`; writes bench/results-bulk.json. Exits 1 if a side's answer or the stored records
// are not as expected; a ratio above its goal is reported, not a failure.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const express = require('express');
const mongoose = require('mongoose');
const { contentRouter } = require('content-router');
const { startMongo, connect, redact } = require('../example-app/mongo');

function envCount(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return n;
}

const RECORDS = envCount('BENCH_BULK_RECORDS', 1000);
const ROUNDS = Math.max(1, envCount('BENCH_BULK_ROUNDS', 5));
const LOOP_ROUNDS = envCount('BENCH_BULK_LOOP_ROUNDS', 1);
const WANTED = (process.env.BENCH_BULK_CASES || '').split(',').map((s) => s.trim()).filter(Boolean);
/** The goal: a bulk update of 1,000 records at most 3x one updateMany plus one find. */
const GOAL = 3;

const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
const fields = {
  title: { type: 'text', required: true },
  status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
  views: { type: 'number', default: 0 },
};
/** The hooked collection's hook: returns nothing, so the data goes on as it came; counts its calls. */
const hookCalls = { calls: 0 };
function trivialBeforeChange() {
  hookCalls.calls += 1;
}
const COLLECTIONS = [
  { slug: 'items', access: open, sortable: [], fields },
  { slug: 'hooked-items', access: open, sortable: [], fields, hooks: { beforeChange: [trivialBeforeChange] } },
  { slug: 'soft-items', access: open, sortable: [], fields, softDelete: true },
];

/** The baseline's own models on the same collections, as a developer would declare them. */
function baselineModels(connection) {
  const schema = (soft) =>
    new mongoose.Schema(
      { title: String, status: String, views: Number, ...(soft ? { deletedAt: { type: Date, default: null } } : {}) },
      { timestamps: true, versionKey: false },
    );
  return {
    items: connection.model('BaselineItem', schema(false), 'items'),
    'hooked-items': connection.model('BaselineHookedItem', schema(false), 'hooked-items'),
    'soft-items': connection.model('BaselineSoftItem', schema(true), 'soft-items'),
  };
}

/** N records per collection, inserted with the driver, each at revision 1 as the router would have created it. */
async function seed(connection) {
  const at = new Date(Date.now() - 60_000);
  for (const { slug, softDelete } of COLLECTIONS) {
    const docs = Array.from({ length: RECORDS }, (_, i) => ({
      _id: new mongoose.Types.ObjectId(),
      title: `Record ${i}`,
      status: i % 3 ? 'published' : 'draft',
      views: i,
      ...(softDelete ? { deletedAt: null } : {}),
      _rev: 1,
      createdAt: at,
      updatedAt: at,
    }));
    await connection.db.collection(slug).insertMany(docs);
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round1 = (n) => Math.round(n * 10) / 10;

/** Runs `fn`, returning its result with the wall time and this process's CPU time it took, in ms. */
/** Milliseconds the database took to answer the commands of the side being timed (the driver's command monitoring). */
const database = { ms: 0 };

async function timed(fn) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  database.ms = 0;
  const result = await fn();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { result, ms, cpuMs: (used.user + used.system) / 1000, dbMs: database.ms };
}

async function main() {
  const mongo = await startMongo();
  const dbName = `cr_bulk_${randomBytes(4).toString('hex')}`;
  const connection = await connect(mongo.uri, dbName, { monitorCommands: true });
  // Each side runs alone, so the commands answered while it runs are its own.
  connection.getClient().on('commandSucceeded', (event) => (database.ms += event.duration));
  const buildInfo = await connection.db.admin().command({ buildInfo: 1 }).catch(() => ({}));
  console.log(`MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : 'mongodb-memory-server'} (reports ${buildInfo.version || '?'}), database ${dbName}`);
  const load = os.loadavg()[0];
  const api = contentRouter({ db: { connection }, collections: COLLECTIONS, logger: { error: console.error, warn: console.warn, info: () => undefined } });
  const app = express();
  app.disable('x-powered-by');
  app.use('/api', api);
  const server = app.listen(0, '127.0.0.1');
  try {
    await Promise.all([api.ready, new Promise((resolve) => server.once('listening', resolve))]);
    const base = `http://127.0.0.1:${server.address().port}/api`;
    const models = baselineModels(connection);
    await seed(connection);
    console.log(`seeded ${RECORDS} records in each of ${COLLECTIONS.map((c) => c.slug).join(', ')}`);

    const call = async (method, url, body) => {
      const response = await fetch(base + url, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await response.json();
      if (response.status !== 200) throw new Error(`${method} ${url}: HTTP ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json;
    };
    const ALL = `?where=${encodeURIComponent('{}')}`;
    const ids = async (slug) => (await connection.db.collection(slug).find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map((d) => String(d._id));
    const sortedIds = (records) => records.map((r) => String(r.id ?? r._id)).sort();
    let value = 1_000_000;

    // What each side does; `check` asserts its answer and the stored records (used before measuring).
    const sides = {
      update: (slug) => ({
        router: async () => {
          const views = ++value;
          const answer = await call('PATCH', `/${slug}${ALL}`, { views });
          return { views, answer };
        },
        baseline: async () => {
          const views = ++value;
          const write = await models[slug].updateMany({}, { $set: { views } });
          const rows = await models[slug].find({}).lean();
          return { views, write, rows };
        },
        async check() {
          const all = await ids(slug);
          const r = await this.router();
          assert.deepStrictEqual(r.answer.meta, { matched: RECORDS, updated: RECORDS, failed: 0 }, `${slug}: router meta`);
          assert.ok(r.answer.data.every((record) => record.views === r.views), `${slug}: the router's answer`);
          assert.deepStrictEqual(sortedIds(r.answer.data), all, `${slug}: the router's records`);
          assert.equal(await connection.db.collection(slug).countDocuments({ views: r.views }), RECORDS, `${slug}: stored by the router`);
          const b = await this.baseline();
          assert.equal(b.write.modifiedCount, RECORDS, `${slug}: baseline modifiedCount`);
          assert.ok(b.rows.every((row) => row.views === b.views), `${slug}: the baseline's rows`);
          assert.deepStrictEqual(sortedIds(b.rows), all, `${slug}: the baseline's records`);
          assert.equal(await connection.db.collection(slug).countDocuments({ views: b.views }), RECORDS, `${slug}: stored by the baseline`);
        },
        loop: async () => {
          const views = ++value;
          for (const id of await ids(slug)) await call('PATCH', `/${slug}/${id}`, { views });
          assert.equal(await connection.db.collection(slug).countDocuments({ views }), RECORDS, `${slug}: stored by the loop`);
        },
      }),
      softDelete: (slug) => {
        const restore = () => connection.db.collection(slug).updateMany({}, { $set: { deletedAt: null } });
        return {
          router: () => call('DELETE', `/${slug}${ALL}`),
          baseline: async () => {
            // The records first (the answer names them), then one write stamping them all, as the update's
            // baseline writes: by the same filter (an `_id: { $in }` of 1,000 ids alone costs the emulator ~100 ms).
            const rows = await models[slug].find({ deletedAt: null }).lean();
            const write = await models[slug].updateMany({ deletedAt: null }, { $set: { deletedAt: new Date() } });
            return { rows, write };
          },
          restore,
          async check() {
            const all = await ids(slug);
            const answer = await this.router();
            assert.deepStrictEqual(answer.meta, { matched: RECORDS, deleted: RECORDS, failed: 0 }, `${slug}: router meta`);
            assert.deepStrictEqual(sortedIds(answer.data), all, `${slug}: the router's records`);
            assert.equal(await connection.db.collection(slug).countDocuments({ deletedAt: { $ne: null } }), RECORDS, `${slug}: deleted by the router`);
            await restore();
            const b = await this.baseline();
            assert.equal(b.write.modifiedCount, RECORDS, `${slug}: baseline modifiedCount`);
            assert.deepStrictEqual(sortedIds(b.rows), all, `${slug}: the baseline's records`);
            assert.equal(await connection.db.collection(slug).countDocuments({ deletedAt: { $ne: null } }), RECORDS, `${slug}: deleted by the baseline`);
            await restore();
          },
          loop: async () => {
            for (const id of await ids(slug)) await call('DELETE', `/${slug}/${id}`);
            assert.equal(await connection.db.collection(slug).countDocuments({ deletedAt: { $ne: null } }), RECORDS, `${slug}: deleted by the loop`);
            await restore();
          },
        };
      },
    };
    const cases = [
      { key: 'update', name: 'update', description: 'PATCH ?where={} setting views on every record', ...sides.update('items') },
      { key: 'update-hooked', name: 'update, beforeChange hook', description: 'the same on a collection with one trivial beforeChange hook', hooked: true, ...sides.update('hooked-items') },
      { key: 'soft-delete', name: 'soft delete', description: 'DELETE ?where={} on a soft-delete collection', ...sides.softDelete('soft-items') },
    ];

    const unknown = WANTED.filter((name) => !cases.some((c) => c.key === name));
    if (unknown.length) throw new Error(`BENCH_BULK_CASES: unknown case(s) ${unknown.join(', ')}; known: ${cases.map((c) => c.key).join(', ')}`);
    const rows = [];
    for (const c of cases.filter((one) => !WANTED.length || WANTED.includes(one.key))) {
      process.stdout.write(`${c.name}: checking... `);
      hookCalls.calls = 0;
      await c.check();
      if (c.hooked) assert.equal(hookCalls.calls, RECORDS, `${c.name}: the beforeChange hook ran ${hookCalls.calls} times, not ${RECORDS}`);
      process.stdout.write('warming up... ');
      for (const side of ['router', 'baseline']) {
        await c[side]();
        await c.restore?.();
      }
      const runs = { router: [], baseline: [] };
      for (let round = 0; round < ROUNDS; round++) {
        process.stdout.write(`${round + 1}/${ROUNDS} `);
        // Which side goes first alternates: the database's own garbage collection falls on both alike.
        for (const side of round % 2 ? ['baseline', 'router'] : ['router', 'baseline']) {
          runs[side].push(await timed(c[side]));
          await c.restore?.();
        }
      }
      const loops = [];
      for (let round = 0; round < LOOP_ROUNDS; round++) {
        process.stdout.write('loop... ');
        loops.push(await timed(c.loop));
      }
      const summary = (list) => ({
        ms: round1(median(list.map((r) => r.ms))),
        cpuMs: round1(median(list.map((r) => r.cpuMs))),
        dbMs: round1(median(list.map((r) => r.dbMs))),
        rounds: list.map((r) => round1(r.ms)),
      });
      const router = summary(runs.router);
      const baseline = summary(runs.baseline);
      const loop = loops.length ? summary(loops) : undefined;
      const ratio = Math.round((router.ms / baseline.ms) * 100) / 100;
      const row = {
        name: c.name,
        description: c.description,
        router,
        baseline,
        ratio,
        cpuRatio: Math.round((router.cpuMs / baseline.cpuMs) * 100) / 100,
        // The router's time had its commands cost the database what the baseline's cost it: its own code's
        // share, whatever the server makes of a revision-conditioned write (an emulator scans for it).
        sameDbRatio: Math.round(((router.ms - router.dbMs + baseline.dbMs) / baseline.ms) * 100) / 100,
        goal: GOAL,
        pass: ratio <= GOAL,
        ...(loop ? { loop, loopRatio: Math.round((loop.ms / router.ms) * 100) / 100 } : {}),
      };
      rows.push(row);
      console.log(`${router.ms} vs ${baseline.ms} ms`);
    }

    console.log(`\nBulk writes of ${RECORDS} records (median of ${ROUNDS} alternating rounds per side; MongoDB ${buildInfo.version || '?'} via ${mongo.source})`);
    console.log('case                        router ms  baseline ms  router/baseline  goal          router db ms  baseline db ms  ratio at baseline db ms  router CPU ms  baseline CPU ms  loop of singles ms  loop/router');
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(26)}  ${String(r.router.ms).padStart(9)}  ${String(r.baseline.ms).padStart(11)}  ${r.ratio.toFixed(2).padStart(15)}  <= ${GOAL} ${(r.pass ? 'ok' : 'ABOVE').padEnd(5)}  ` +
          `${String(r.router.dbMs).padStart(12)}  ${String(r.baseline.dbMs).padStart(14)}  ${r.sameDbRatio.toFixed(2).padStart(23)}  ` +
          `${String(r.router.cpuMs).padStart(13)}  ${String(r.baseline.cpuMs).padStart(15)}  ${String(r.loop?.ms ?? '-').padStart(18)}  ${r.loopRatio === undefined ? '-' : r.loopRatio.toFixed(1)}`,
      );
    }
    console.log('router: the bulk request over HTTP, answer read; baseline: updateMany + find (delete: find + updateMany of deletedAt) on the same collection.');
    console.log('db ms: the database\'s answers to each side\'s commands (driver command monitoring); ratio at baseline db ms: (router - its db ms + baseline db ms) / baseline.');
    console.log('CPU ms: this process (router, baseline, driver, HTTP client); the database server\'s CPU is not counted.');
    const results = { at: new Date().toISOString(), node: process.version, mongo: { source: mongo.source, version: buildInfo.version || null }, loadAverageAtStart: round1(load), records: RECORDS, rounds: ROUNDS, cases: rows };
    fs.writeFileSync(path.join(__dirname, 'results-bulk.json'), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    server.closeAllConnections?.();
    server.close();
    await api.close();
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await mongo.stop();
  }
}

main().catch((error) => {
  console.error(`\nbench failed: ${error && error.stack ? error.stack : error}`);
  process.exitCode = 1;
});
