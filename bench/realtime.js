'use strict';
// `npm run bench` (after bench/run.js): realtime fan-out. For each transport, two server processes
// (bench/realtime-server.js) run side by side: the router, and a hand-written Express baseline speaking the
// same protocol (an in-process fan-out: insert, then res.write / ws.send to every client). Each holds N SSE
// or M WebSocket clients of this process. Memory per client (RSS and heap after GC, over a warmed-up
// baseline) is read for each side; then W writes (a POST) alternate between the sides, so that the
// machine's drift falls on both alike, each timed from sending it to every client parsing its event.
// Reports p50/p99 write-to-receive latency over all deliveries, the p99 of a typical write (each write's
// p99, median over the writes: a database that stalls one write now and then, as the Java emulator does
// in its garbage collections, decides the overall p99 alone), the fan-out's own spread (each write's p99
// counted from its first delivery, median over the writes: what the database's latency does not touch),
// the server's CPU per delivered event, and memory per client.
//
// Knobs (env): BENCH_SSE_CLIENTS=1000  BENCH_WS_CLIENTS=1000  BENCH_REALTIME_WRITES=20
// Goals, router against baseline in the same run: SSE p99 of a typical write at most 1.1x; WebSocket memory
// per client at most 2x (RSS and heap). The absolute goals of earlier releases (p99 < 50 ms, RSS < 20 KB)
// are printed too. Writes bench/realtime-results.json.

const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { createParser } = require('eventsource-parser');
const WebSocket = require('ws');
const { MongoStartError, startMongo, connect, redact } = require('../example-app/mongo');

const GOAL_P99_MS = 50;
const GOAL_BYTES_PER_CLIENT = 20 * 1024;
/** Router over baseline: SSE p99 of a typical write, WebSocket memory per client. */
const GOAL_SSE_P99_RATIO = 1.1;
const GOAL_WS_MEMORY_RATIO = 2;
const SIDES = ['router', 'baseline'];

function envNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

const settings = {
  sseClients: envNumber('BENCH_SSE_CLIENTS', 1000),
  wsClients: envNumber('BENCH_WS_CLIENTS', 1000),
  writes: envNumber('BENCH_REALTIME_WRITES', 20),
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function startServer(uri, dbName, side) {
  const child = fork(path.join(__dirname, 'realtime-server.js'), [], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, BENCH_MONGODB_URI: uri, BENCH_DB_NAME: dbName, BENCH_SIDE: side },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map();
  let nextId = 1;
  let onReady;
  const ready = new Promise((resolve, reject) => {
    onReady = resolve;
    child.once('exit', (code) => reject(new Error(`realtime server exited (${code})`)));
  });
  child.on('message', (message) => {
    if (message.ready) return onReady(message.port);
    const entry = pending.get(message.id);
    if (entry) {
      pending.delete(message.id);
      entry(message.result);
    }
  });
  const ask = (type) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.send({ type, id });
    });
  return { child, ready, ask };
}

/** Waits until `check()` is true, polling; throws after `ms`. */
async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Arrival times (performance.now()) by record id, shared by every client of a run. */
function createArrivals() {
  const byId = new Map();
  return {
    note(docId) {
      const now = performance.now();
      let list = byId.get(docId);
      if (!list) byId.set(docId, (list = []));
      list.push(now);
    },
    count: (docId) => byId.get(docId)?.length ?? 0,
    times: (docId) => byId.get(docId) ?? [],
  };
}

function openSse(port, arrivals) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/api/sse?collections=events', agent: false, headers: { Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE answered ${res.statusCode}`));
      const parser = createParser({ onEvent: (event) => event.event === 'create' && arrivals.note(JSON.parse(event.data).docId) });
      res.setEncoding('utf8');
      res.on('data', (chunk) => parser.feed(chunk));
      res.on('error', () => undefined);
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

function openWs(port, arrivals) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/ws`);
    socket.on('error', reject);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'subscribe', collections: ['events'] })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.type === 'subscribed') resolve({ close: () => socket.terminate() });
      else if (message.type === 'create') arrivals.note(message.docId);
    });
  });
}

async function write(port, name) {
  const response = await fetch(`http://127.0.0.1:${port}/api/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (response.status !== 201) throw new Error(`write answered ${response.status}`);
  return (await response.json()).id;
}

/** Warms a side up and connects `count` clients of `kind`; returns them and the memory before and after. */
async function connectClients(server, port, kind, count, arrivals) {
  const open = kind === 'sse' ? openSse : openWs;
  // Warm-up: connect a fifth of the clients, write once, disconnect, so the memory baseline already
  // includes what any busy server has (grown young generation, parser pools), not only per-client state.
  const warm = [];
  for (let i = 0; i < Math.ceil(count / 5); i++) warm.push(await open(port, arrivals));
  const id = await write(port, `${kind} warm-up`);
  await until(() => arrivals.count(id) >= warm.length, 30_000, `the warm-up ${kind} clients`);
  for (const client of warm) client.close();
  await until(async () => (await server.ask('stats'))[kind] === 0, 30_000, `warm-up ${kind} clients to go`);

  const before = await server.ask('memory');
  const clients = [];
  for (let i = 0; i < count; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => open(port, arrivals)));
    clients.push(...batch);
  }
  await until(async () => (await server.ask('stats'))[kind] === count, 30_000, `${count} ${kind} clients`);
  const after = await server.ask('memory');
  return { clients, before, after };
}

/**
 * One transport, both sides at once: clients connected to each (memory read per side), then
 * `settings.writes` writes per side, alternating sides and which goes first. Returns a row per side.
 */
async function measure(servers, ports, kind, count) {
  const state = {};
  for (const side of SIDES) {
    const arrivals = createArrivals();
    state[side] = { arrivals, latencies: [], writeP99s: [], spreadP99s: [], writeTimes: [], ...(await connectClients(servers[side], ports[side], kind, count, arrivals)) };
  }
  const cpuBefore = {};
  for (const side of SIDES) cpuBefore[side] = await servers[side].ask('cpu');
  // Write 0 warms up (JIT, the collection's first insert) and is not counted.
  for (let i = 0; i <= settings.writes; i++) {
    for (const side of i % 2 ? [...SIDES].reverse() : SIDES) {
      const { arrivals, latencies, writeP99s, spreadP99s, writeTimes } = state[side];
      const started = performance.now();
      const id = await write(ports[side], `${kind} write ${i}`);
      const answered = performance.now();
      await until(() => arrivals.count(id) >= count, 30_000, `every ${kind} client of the ${side} to receive write ${i}`);
      if (i > 0) {
        const times = arrivals.times(id).map((at) => at - started);
        latencies.push(...times);
        times.sort((a, b) => a - b);
        writeP99s.push(percentile(times, 99));
        spreadP99s.push(percentile(times, 99) - times[0]);
        writeTimes.push(answered - started);
      }
      await sleep(50);
    }
  }
  const rows = [];
  for (const side of SIDES) {
    const server = servers[side];
    const { clients, before, after, latencies, writeP99s, spreadP99s, writeTimes } = state[side];
    const cpuAfter = await server.ask('cpu');
    // Server CPU per delivered event: the fan-out's own cost, which a busy machine slows but does not inflate.
    const cpuMicros = cpuAfter.user + cpuAfter.system - cpuBefore[side].user - cpuBefore[side].system;
    for (const client of clients) client.close();
    await until(async () => (await server.ask('stats'))[kind] === 0, 30_000, `${kind} clients to go`);
    latencies.sort((a, b) => a - b);
    writeTimes.sort((a, b) => a - b);
    writeP99s.sort((a, b) => a - b);
    spreadP99s.sort((a, b) => a - b);
    const round2 = (n) => Math.round(n * 100) / 100;
    const rssPerClient = (after.rss - before.rss) / count;
    const heapPerClient = (after.heapUsed - before.heapUsed) / count;
    rows.push({
      transport: kind,
      side,
      clients: count,
      writes: settings.writes,
      samples: latencies.length,
      p50Ms: round2(percentile(latencies, 50)),
      p99Ms: round2(percentile(latencies, 99)),
      maxMs: round2(latencies[latencies.length - 1]),
      writeP99MedianMs: round2(percentile(writeP99s, 50)),
      spreadP99MedianMs: round2(percentile(spreadP99s, 50)),
      writeP50Ms: round2(percentile(writeTimes, 50)),
      serverCpuMicrosPerEvent: Math.round((cpuMicros / ((settings.writes + 1) * count)) * 10) / 10,
      memoryBefore: before,
      memoryAfter: after,
      rssBytesPerClient: Math.round(rssPerClient),
      heapBytesPerClient: Math.round(heapPerClient),
      latencyOk: percentile(latencies, 99) < GOAL_P99_MS,
      memoryOk: rssPerClient < GOAL_BYTES_PER_CLIENT,
    });
  }
  return rows;
}

async function main() {
  let mongo;
  let connection;
  const dbName = `cr_bench_rt_${randomBytes(4).toString('hex')}`;
  try {
    mongo = await startMongo();
    connection = await connect(mongo.uri, dbName);
  } catch (error) {
    console.error(error instanceof MongoStartError ? error.message : `Could not start MongoDB: ${error.message}`);
    process.exitCode = 1;
    await mongo?.stop();
    return;
  }
  console.log(`realtime bench: MongoDB ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : 'mongodb-memory-server'}, databases ${dbName}_{${SIDES.join(',')}}`);
  const rows = [];
  try {
    for (const [kind, count] of [['sse', settings.sseClients], ['ws', settings.wsClients]]) {
      // A database per side: the router's change stream would otherwise pick up the baseline's writes and
      // fan them out to its own clients too.
      const servers = Object.fromEntries(SIDES.map((side) => [side, startServer(mongo.uri, `${dbName}_${side}`, side)]));
      try {
        const ports = Object.fromEntries(await Promise.all(SIDES.map(async (side) => [side, await servers[side].ready])));
        rows.push(...(await measure(servers, ports, kind, count)));
      } finally {
        for (const server of Object.values(servers)) if (server.child.connected) await server.ask('close');
      }
    }
    console.log('');
    console.log('transport  side      clients  p50 ms  p99 ms  max ms  p99 of a write  fan-out p99  write alone p50  server CPU/event  RSS/client  heap/client  (p99 < 50 ms, RSS < 20 KB)');
    for (const r of rows) {
      console.log(
        [
          r.transport.padEnd(9),
          r.side.padEnd(8),
          String(r.clients).padStart(7),
          r.p50Ms.toFixed(2).padStart(6),
          r.p99Ms.toFixed(2).padStart(6),
          r.maxMs.toFixed(2).padStart(6),
          `${r.writeP99MedianMs.toFixed(2)} ms`.padStart(14),
          `${r.spreadP99MedianMs.toFixed(2)} ms`.padStart(11),
          `${r.writeP50Ms.toFixed(2)} ms`.padStart(15),
          `${r.serverCpuMicrosPerEvent.toFixed(1)} µs`.padStart(16),
          `${(r.rssBytesPerClient / 1024).toFixed(1)} KB`.padStart(10),
          `${(r.heapBytesPerClient / 1024).toFixed(1)} KB`.padStart(11),
          r.side === 'router' ? `  ${r.latencyOk ? 'ok' : 'SLOW'} / ${r.memoryOk ? 'ok' : 'HEAVY'}` : '',
        ].join('  '),
      );
    }
    const ratios = {};
    for (const kind of ['sse', 'ws']) {
      const [router, baseline] = SIDES.map((side) => rows.find((r) => r.transport === kind && r.side === side));
      ratios[kind] = {
        p50: router.p50Ms / baseline.p50Ms,
        p99: router.p99Ms / baseline.p99Ms,
        writeP99: router.writeP99MedianMs / baseline.writeP99MedianMs,
        spreadP99: router.spreadP99MedianMs / baseline.spreadP99MedianMs,
        cpuPerEvent: router.serverCpuMicrosPerEvent / baseline.serverCpuMicrosPerEvent,
        rssPerClient: router.rssBytesPerClient / baseline.rssBytesPerClient,
        heapPerClient: router.heapBytesPerClient / baseline.heapBytesPerClient,
      };
      const r = ratios[kind];
      console.log(
        `${kind}: router/baseline p50 ${r.p50.toFixed(2)}x, p99 ${r.p99.toFixed(2)}x, p99 of a write ${r.writeP99.toFixed(2)}x, fan-out p99 ${r.spreadP99.toFixed(2)}x, CPU/event ${r.cpuPerEvent.toFixed(2)}x, ` +
          `RSS/client ${r.rssPerClient.toFixed(2)}x, heap/client ${r.heapPerClient.toFixed(2)}x`,
      );
    }
    const verdict = (ok) => (ok ? 'ok' : 'NOT MET');
    console.log(`goal: SSE p99 of a write router/baseline <= ${GOAL_SSE_P99_RATIO}x: ${verdict(ratios.sse.writeP99 <= GOAL_SSE_P99_RATIO)}`);
    console.log(
      `goal: WebSocket memory per client router/baseline <= ${GOAL_WS_MEMORY_RATIO}x: RSS ${verdict(ratios.ws.rssPerClient <= GOAL_WS_MEMORY_RATIO)}, ` +
        `heap ${verdict(ratios.ws.heapPerClient <= GOAL_WS_MEMORY_RATIO)}`,
    );
    const load = require('node:os').loadavg()[0];
    console.log(`load average at the end: ${load.toFixed(1)} on ${require('node:os').availableParallelism()} cores (a busy machine inflates every latency; compare the ratios).`);
    console.log(`\n${settings.writes} writes per transport and side (after one warm-up each), alternating sides; latency = POST sent -> event parsed by each client (clients in this process); p99 of a write = each write's p99, median over the writes; fan-out p99 = the same counted from each write's first delivery; write alone = POST sent -> its 201.`);
    const file = path.join(__dirname, 'realtime-results.json');
    fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, settings, rows, ratios }, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    for (const side of SIDES) await connection.useDb(`${dbName}_${side}`).dropDatabase().catch(() => undefined);
    await connection.close();
    await mongo.stop();
  }
}

main().catch((error) => {
  console.error(`\nrealtime bench failed: ${error && error.stack ? error.stack : error}`);
  process.exitCode = 1;
});
