'use strict';
// Webhooks: writes at a steady rate (200 a second by default) through the local API to a collection three
// endpoints want, each a local HTTP receiver answering 200 at once. Measured:
//   - event to first attempt: from the write's completion to the request's arrival at the receiver, per
//     (record, endpoint), p50 and p99 (the goals: under 100 ms and under 500 ms);
//   - the same while a fourth endpoint hangs on every delivery it gets (it wants every write of that phase):
//     the three others must not slow down;
//   - memory: the heap after a full GC, sampled every 2,500 deliveries over 10,000, must stay flat.
// For scale, the floor: how late the driver's own change stream sees inserts at the same rate on the same
// server (nothing of the router's); on a loaded machine most of the latency is there.
// Before reporting, every record must have reached every good receiver once, with a signature that the
// standardwebhooks package verifies.
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true node --expose-gc bench/webhooks.js
//
// Knobs (env): BENCH_WEBHOOKS_RATE=200 (writes a second)  BENCH_WEBHOOKS_SECONDS=10 (the calm phase; the
// hanging phase is half of it)  BENCH_WEBHOOKS_DELIVERIES=10000 (the memory phase).
// Run by `npm run bench`; writes bench/results-webhooks.json. Exits 1 if a delivery is missing, doubled or
// badly signed; a goal missed is reported, not a failure.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { Webhook } = require('standardwebhooks');
const { contentRouter } = require('content-router');
const { startMongo, connect, redact } = require('../example-app/mongo');

function envCount(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number >= 1, got "${raw}"`);
  return n;
}

const RATE = envCount('BENCH_WEBHOOKS_RATE', 200);
const SECONDS = envCount('BENCH_WEBHOOKS_SECONDS', 10);
const DELIVERIES = envCount('BENCH_WEBHOOKS_DELIVERIES', 10_000);
const GOALS = { p50: 100, p99: 500 };
const ENDPOINTS = 3;

/** A receiver: notes when each record's first request arrived; verifies every signature. */
async function startReceiver(name, { hang = false } = {}) {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const verifier = new Webhook(secret);
  const firstAt = new Map();
  const ids = new Map();
  let bad = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const payload = verifier.verify(body, req.headers);
        if (!firstAt.has(payload.data.id)) firstAt.set(payload.data.id, at);
        ids.set(req.headers['webhook-id'], (ids.get(req.headers['webhook-id']) ?? 0) + 1);
      } catch {
        bad += 1;
      }
      if (!hang) res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    secret,
    url: `http://127.0.0.1:${server.address().port}/${name}`,
    firstAt,
    ids,
    bad: () => bad,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round1 = (n) => Math.round(n * 10) / 10;

/** Writes `count` records at RATE a second, none waiting for another; answers each record's completion time. */
async function writeAtRate(api, count, phase) {
  const cpu = process.cpuUsage();
  const done = new Map();
  const interval = 1000 / RATE;
  const start = performance.now();
  const writes = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    writes.push(api.local.create('items', { title: `${phase} ${i}`, phase }).then((record) => done.set(record.id, performance.now())));
  }
  await Promise.all(writes);
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  // The share of one core this process (router, driver, receivers, writer) used while writing.
  return { done, seconds, cpuShare: Math.round(((used.user + used.system) / 1000 / (seconds * 1000)) * 100) / 100 };
}

/**
 * The floor under any webhook: how late a plain change stream (the driver alone, same server, same rate)
 * sees inserts. What the router adds is the difference.
 */
async function streamFloor(connection, count) {
  const collection = connection.db.collection('floor');
  const stream = collection.watch([], { maxAwaitTimeMS: 1000 });
  await stream.tryNext();
  const done = new Map();
  // Arrivals by record: a change may arrive before its insert's answer does.
  const arrived = new Map();
  let reading = true;
  const reader = (async () => {
    while (reading) {
      const asked = Date.now();
      const change = await stream.tryNext();
      if (change) arrived.set(change.fullDocument.i, performance.now());
      else if (Date.now() - asked < 500) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const interval = 1000 / RATE;
  const start = performance.now();
  const writes = [];
  for (let i = 0; i < count; i++) {
    const wait = start + i * interval - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    writes.push(collection.insertOne({ i }).then(() => done.set(i, performance.now())));
  }
  await Promise.all(writes);
  const deadline = Date.now() + 120_000;
  while (arrived.size < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  reading = false;
  await stream.close();
  await reader.catch(() => undefined);
  const seen = [...arrived].map(([i, at]) => at - done.get(i)).sort((a, b) => a - b);
  return { events: seen.length, p50: round1(percentile(seen, 50)), p99: round1(percentile(seen, 99)), max: round1(seen[seen.length - 1]) };
}

/** Waits until every record reached every receiver (or the deadline passes). */
async function settle(receivers, ids, connection, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!receivers.every((r) => ids.every((id) => r.firstAt.has(id)))) {
    if (Date.now() > deadline) {
      const missing = receivers.map((r) => `${r.name}: ${ids.filter((id) => !r.firstAt.has(id)).length}`).join(', ');
      const rows = await connection
        .collection('content-router.webhook-deliveries')
        .aggregate([{ $group: { _id: { endpoint: '$endpoint', status: '$status', leased: { $gt: ['$leaseUntil', null] } }, n: { $sum: 1 } } }])
        .toArray();
      throw new Error(`deliveries missing after ${timeoutMs / 1000} s (${missing}); rows: ${JSON.stringify(rows)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Event-to-first-attempt latencies of one phase, over the good receivers. */
function latencies(receivers, done) {
  const ms = [];
  for (const r of receivers) for (const [id, at] of done) ms.push(r.firstAt.get(id) - at);
  ms.sort((a, b) => a - b);
  return { deliveries: ms.length, p50: round1(percentile(ms, 50)), p99: round1(percentile(ms, 99)), max: round1(ms[ms.length - 1]) };
}

/** Every signature verified and every webhook-id arrived once; then the receivers forget what they saw. */
function checkReceived(receivers) {
  for (const r of receivers) {
    assert.equal(r.bad(), 0, `${r.name}: a signature did not verify`);
    for (const [id, n] of r.ids) assert.equal(n, 1, `${r.name}: webhook-id ${id} arrived ${n} times`);
    r.ids.clear();
    r.firstAt.clear();
  }
}

function heapAfterGc() {
  if (typeof global.gc === 'function') {
    global.gc();
    global.gc();
  }
  return Math.round(process.memoryUsage().heapUsed / 1024 / 1024 * 10) / 10;
}

async function main() {
  if (typeof global.gc !== 'function') console.warn('run with node --expose-gc for heap figures after a full GC');
  const mongo = await startMongo();
  const dbName = `cr_webhooks_${randomBytes(4).toString('hex')}`;
  const connection = await connect(mongo.uri, dbName);
  const buildInfo = await connection.db.admin().command({ buildInfo: 1 }).catch(() => ({}));
  console.log(`MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : 'mongodb-memory-server'} (reports ${buildInfo.version || '?'}), database ${dbName}`);
  const load = os.loadavg()[0];
  const good = await Promise.all(Array.from({ length: ENDPOINTS }, (_, i) => startReceiver(`good${i + 1}`)));
  const hanging = await startReceiver('hanging', { hang: true });
  const api = contentRouter({
    db: { connection },
    collections: [{ slug: 'items', access: { read: () => true, create: () => true }, sortable: [], fields: { title: { type: 'text' }, phase: { type: 'text' } } }],
    webhooks: {
      endpoints: [
        ...good.map((r) => ({ url: r.url, secret: r.secret, events: ['items.create'] })),
        { url: hanging.url, secret: hanging.secret, events: ['items.create'], where: { phase: { eq: 'hang' } } },
      ],
      timeoutMs: 60_000,
    },
    logger: { error: console.error, warn: console.warn, info: () => undefined },
  });
  const phases = {};
  try {
    await api.ready;

    const calm = await writeAtRate(api, RATE * SECONDS, 'calm');
    await settle(good, [...calm.done.keys()], connection);
    phases.calm = { writes: calm.done.size, writeSeconds: round1(calm.seconds), processCpu: calm.cpuShare, ...latencies(good, calm.done) };

    const hang = await writeAtRate(api, Math.ceil((RATE * SECONDS) / 2), 'hang');
    await settle(good, [...hang.done.keys()], connection);
    phases.hanging = { writes: hang.done.size, writeSeconds: round1(hang.seconds), processCpu: hang.cpuShare, ...latencies(good, hang.done), hangingHeld: hanging.firstAt.size };

    // The receivers' own records are checked and dropped before each sample: the heap is the router's.
    checkReceived(good);
    const samples = [];
    const per = Math.ceil(DELIVERIES / ENDPOINTS / 4);
    samples.push({ deliveries: 0, heapMb: heapAfterGc() });
    for (let step = 1; step <= 4; step++) {
      const round = await writeAtRate(api, per, `memory${step}`);
      await settle(good, [...round.done.keys()], connection);
      checkReceived(good);
      samples.push({ deliveries: step * per * ENDPOINTS, heapMb: heapAfterGc() });
    }
    phases.memory = { samples, growthMb: round1(samples[samples.length - 1].heapMb - samples[1].heapMb) };

    // Last, so its writes are not in the router's way (some servers' streams read past other collections' changes).
    phases.streamFloor = await streamFloor(connection, RATE * SECONDS);


    console.log(`\nwebhooks: ${RATE} writes/s to ${ENDPOINTS} endpoints (local receivers), event = write completed, to first attempt = request arrived`);
    console.log(`floor:    a plain change stream (the driver alone) saw the same rate's inserts after p50 ${phases.streamFloor.p50} ms, p99 ${phases.streamFloor.p99} ms`);
    console.log(`calm:     ${phases.calm.deliveries} deliveries  p50 ${phases.calm.p50} ms  p99 ${phases.calm.p99} ms  max ${phases.calm.max} ms  (goals: p50 < ${GOALS.p50}, p99 < ${GOALS.p99}); this process used ${phases.calm.processCpu} of a core`);
    console.log(`hanging:  ${phases.hanging.deliveries} deliveries  p50 ${phases.hanging.p50} ms  p99 ${phases.hanging.p99} ms  while a 4th endpoint hung on ${phases.hanging.hangingHeld} requests`);
    console.log(`memory:   heap after GC ${samples.map((s) => `${s.heapMb} MB @${s.deliveries}`).join(', ')}; growth from the first 2,500 on: ${phases.memory.growthMb} MB`);
    const met = phases.calm.p50 < GOALS.p50 && phases.calm.p99 < GOALS.p99;
    console.log(met ? 'goals met' : 'goals NOT met (reported, not a failure)');
    const results = { at: new Date().toISOString(), node: process.version, mongo: { source: mongo.source, version: buildInfo.version || null }, loadAverageAtStart: round1(load), rate: RATE, endpoints: ENDPOINTS, goals: GOALS, phases };
    fs.writeFileSync(path.join(__dirname, 'results-webhooks.json'), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await api.close();
    await Promise.all([...good, hanging].map((r) => r.close()));
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await mongo.stop();
  }
}

main().catch((error) => {
  console.error(`\nbench failed: ${error && error.stack ? error.stack : error}`);
  process.exitCode = 1;
});
