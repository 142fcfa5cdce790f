'use strict';
// The audit log's costs:
//   - create: the CPU of a create with the audit log on against one without (goal: at most 1.15x). Two routers
//     on one connection, each its own collection, created through the local API one at a time in alternate
//     blocks of 50, so any drift of the machine falls on both alike; a block's process CPU (process.cpuUsage
//     around it and a pause after it, so it includes the batched writes of its entries: the router, the driver,
//     the entries' inserts) per create is attributed to its side. Reported: mean and median µs per create per
//     side, and the ratio of the medians. Without transactions on the server (a standalone, the
//     CI server) an entry is one more insert; on a replica set every write also runs in a transaction once
//     something records changes (the versions and the audit log alike), which this measures only there.
//   - export: GET /audit/export of 100,000 entries over a real socket, read as fast as the client can; the
//     process's RSS and heap (after a full GC) are sampled during the export: the growth over the baseline
//     must stay under 50 MB (goal), whatever the count.
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true node --expose-gc bench/audit.js
//
// Knobs (env): BENCH_AUDIT_CREATES=3000 (per side)  BENCH_AUDIT_EXPORT=100000 (entries).
// Needs the built package (npm run build). Writes bench/results-audit.json.

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const express = require('express');
const { Types } = require('mongoose');
const { contentRouter } = require('content-router');
const { startMongo, connect } = require('../example-app/mongo');

const CREATES = Number(process.env.BENCH_AUDIT_CREATES || 3000);
const EXPORTED = Number(process.env.BENCH_AUDIT_EXPORT || 100_000);
const WARMUP = 300;
/** Creates per measured block (the CPU of a block, its entries' batched writes included, per create). */
const BLOCK = 50;
const CPU_GOAL = 1.15;
const MEMORY_GOAL_MB = 50;

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined };
const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
const fields = { title: { type: 'text' }, body: { type: 'textarea' }, views: { type: 'number' } };

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const cpuMicros = (start) => {
  const used = process.cpuUsage(start);
  return used.user + used.system;
};

async function measureCreates(connection) {
  const on = contentRouter({ db: { connection }, logger: silent, collections: [{ slug: 'audited', access: open, fields }], audit: {} });
  const off = contentRouter({ db: { connection }, logger: silent, collections: [{ slug: 'plain', access: open, fields }] });
  await Promise.all([on.ready, off.ready]);
  const sides = { on: [], off: [] };
  // A block of creates and then a pause longer than the entry queue's flush delay: the block's CPU includes the
  // batched write of its entries, whenever the queue sends it.
  const block = async (api, slug, side, from) => {
    const start = process.cpuUsage();
    for (let i = from; i < from + BLOCK; i += 1) await api.local.create(slug, { title: `post ${i}`, body: 'x'.repeat(200), views: i });
    await new Promise((resolve) => setTimeout(resolve, 80));
    if (side) sides[side].push(cpuMicros(start) / BLOCK);
  };
  for (let i = 0; i < WARMUP; i += BLOCK) {
    await block(on, 'audited', undefined, i);
    await block(off, 'plain', undefined, i);
  }
  for (let i = 0; i < CREATES; i += BLOCK) {
    // Alternate which side goes first, so neither always follows the other.
    if ((i / BLOCK) % 2 === 0) {
      await block(on, 'audited', 'on', i);
      await block(off, 'plain', 'off', i);
    } else {
      await block(off, 'plain', 'off', i);
      await block(on, 'audited', 'on', i);
    }
  }
  await Promise.all([on.close(), off.close()]);
  const result = {
    creates: CREATES,
    onMeanUs: Math.round(mean(sides.on)),
    offMeanUs: Math.round(mean(sides.off)),
    onMedianUs: Math.round(median(sides.on)),
    offMedianUs: Math.round(median(sides.off)),
  };
  result.ratio = Number((result.onMedianUs / result.offMedianUs).toFixed(3));
  result.goal = CPU_GOAL;
  result.met = result.ratio <= CPU_GOAL;
  return result;
}

function memory() {
  global.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

async function measureExport(connection) {
  const rows = connection.collection('content-router.audit');
  await rows.deleteMany({});
  const at = Date.now();
  for (let done = 0; done < EXPORTED; done += 5000) {
    const batch = Array.from({ length: Math.min(5000, EXPORTED - done) }, (_, i) => ({
      _id: new Types.ObjectId(),
      at: new Date(at - done - i),
      action: 'update',
      actor: { type: 'user', id: new Types.ObjectId().toHexString(), collection: 'users' },
      resource: { collection: 'posts', id: new Types.ObjectId().toHexString() },
      changedFields: ['title', 'body'],
      outcome: { status: 200 },
      request: { id: randomBytes(16).toString('hex'), method: 'PATCH', path: '/api/posts/x', ip: '127.0.0.1', userAgent: 'bench', origin: 'rest' },
    }));
    await rows.insertMany(batch, { ordered: false });
  }
  const api = contentRouter({ db: { connection }, logger: silent, collections: [{ slug: 'posts', access: open, fields }], audit: { access: { read: () => true } } });
  await api.ready;
  const app = express();
  app.use('/api', api);
  const server = http.createServer(app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();

  const before = memory();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  let lines = 0;
  let bytes = 0;
  const started = performance.now();
  await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/api/audit/export' }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      let chunks = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
        for (let i = 0; i < chunk.length; i += 1) if (chunk[i] === 10) lines += 1;
        chunks += 1;
        if (chunks % 200 === 0) {
          const now = memory();
          peakRss = Math.max(peakRss, now.rss);
          peakHeap = Math.max(peakHeap, now.heapUsed);
        }
      });
      res.on('end', resolve);
      res.on('error', reject);
    }).on('error', reject);
  });
  const seconds = (performance.now() - started) / 1000;
  server.close();
  await api.close();
  if (lines !== EXPORTED) throw new Error(`the export gave ${lines} lines for ${EXPORTED} entries`);
  const mb = (value) => Number((value / 1024 / 1024).toFixed(1));
  const growthMb = mb(peakRss - before.rss);
  return {
    entries: EXPORTED,
    megabytes: mb(bytes),
    seconds: Number(seconds.toFixed(2)),
    rssBeforeMb: mb(before.rss),
    rssGrowthMb: growthMb,
    heapGrowthMb: mb(peakHeap - before.heapUsed),
    goalMb: MEMORY_GOAL_MB,
    met: growthMb < MEMORY_GOAL_MB,
  };
}

async function main() {
  const mongo = await startMongo();
  const connection = await connect(mongo.uri, `cr_audit_${randomBytes(4).toString('hex')}`);
  try {
    const create = await measureCreates(connection);
    console.log('create, audit log on vs off (µs CPU per create):', create);
    const exported = await measureExport(connection);
    console.log(`export of ${EXPORTED} entries:`, exported);
    fs.writeFileSync(path.join(__dirname, 'results-audit.json'), `${JSON.stringify({ create, export: exported }, null, 2)}\n`);
  } finally {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await mongo.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
