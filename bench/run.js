'use strict';
// `npm run bench`: content-router vs a hand-written Express + Mongoose baseline, same process,
// same mongoose connection, same collection. See bench/cases.js for what is measured. The list and
// get cases also run on a peer, express-restify-mongoose (bench/peer-app.js): router/peer beside
// router/baseline.
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true npm run bench
//
// Knobs (env): BENCH_CASES=list,get,population,uploads  BENCH_POSTS=10000  BENCH_UPLOAD_MB=200 (bench/uploads.js)  BENCH_ROUNDS=2  BENCH_DURATION=3 (s)
//              BENCH_WARMUP=1 (s)  BENCH_CONNECTIONS=10
//              BENCH_STUB_READS=1: reads answer from memory after their first real run (bench/stub-reads.js),
//              so list/get measure only the Node side: the router's own overhead, without the database.
// Writes bench/results.json. Exits 1 if the sides disagree on an answer or a run has errors;
// a ratio below its goal is reported (and flagged in results.json) but does not fail the run.
// The router/peer goal (>= 2x) is about the Node side, so it is judged only with BENCH_STUB_READS=1.

const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { MongoStartError, startMongo, connect, redact } = require('../example-app/mongo');
const allCases = require('./cases');
const { seed } = require('./seed');
const { createRouterApp } = require('./router-app');
const { createBaselineApp } = require('./baseline-app');
const { createPeerApp } = require('./peer-app');
const { stubReads } = require('./stub-reads');
const { runUploadsBench } = require('./uploads');
const { runPopulationBench } = require('./population');

const SIDES = ['router', 'baseline'];
/** A case with `peer: true` also runs on the peer (express-restify-mongoose). */
const sidesOf = (caseDef) => (caseDef.peer ? [...SIDES, 'peer'] : SIDES);
/** Minimum router/peer req/s ratio, for the Node side (reads stubbed); with the database it is informational. */
const PEER_GOAL = 2;

function envNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

const settings = {
  posts: envNumber('BENCH_POSTS', 10000),
  rounds: envNumber('BENCH_ROUNDS', 2),
  duration: envNumber('BENCH_DURATION', 3),
  warmup: envNumber('BENCH_WARMUP', 1),
  connections: envNumber('BENCH_CONNECTIONS', 10),
  stubReads: ['1', 'true'].includes(process.env.BENCH_STUB_READS || ''),
};

/** The large-file upload/download measurement (bench/uploads.js) runs after the request cases. */
const UPLOADS_CASE = 'uploads';
/** Batched population vs $lookup (bench/population.js), after the request cases, always on the database. */
const POPULATION_CASE = 'population';
const EXTRA_CASES = [POPULATION_CASE, UPLOADS_CASE];
/** Whether an extra (non-request) case runs: all run when BENCH_CASES is unset. */
const wantsExtra = (name) => !wantedCaseNames().length || wantedCaseNames().includes(name);

function wantedCaseNames() {
  return (process.env.BENCH_CASES || '').split(',').map((s) => s.trim()).filter(Boolean);
}

function selectedCases() {
  const wanted = wantedCaseNames().filter((name) => !EXTRA_CASES.includes(name));
  if (!wantedCaseNames().length) return allCases;
  const unknown = wanted.filter((name) => !allCases.some((c) => c.name === name));
  if (unknown.length) throw new Error(`BENCH_CASES: unknown case(s) ${unknown.join(', ')}; known: ${[...allCases.map((c) => c.name), ...EXTRA_CASES].join(', ')}`);
  return allCases.filter((c) => wanted.includes(c.name));
}

/** Listens on a loopback ephemeral port; `server.inFlight` counts requests not yet answered. */
function listen(app) {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1');
    server.inFlight = 0;
    server.on('request', (_req, res) => {
      server.inFlight += 1;
      res.once('close', () => {
        server.inFlight -= 1;
      });
    });
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

/** Waits until the load generator's last requests are answered, so runs never overlap. */
async function drain(server, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (server.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

/** The load generator child process, with a promise-returning `run(job)`. */
function startLoader() {
  const child = fork(path.join(__dirname, 'load.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  let nextId = 1;
  child.on('message', (message) => {
    const entry = pending.get(message.id);
    if (!entry) return;
    pending.delete(message.id);
    if (message.error) entry.reject(new Error(`load generator: ${message.error}`));
    else entry.resolve(message.result);
  });
  child.on('exit', (code) => {
    for (const entry of pending.values()) entry.reject(new Error(`load generator exited (${code})`));
    pending.clear();
  });
  return {
    run(job) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ ...job, id });
      });
    },
    stop() {
      if (child.connected) child.disconnect();
    },
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round1 = (n) => Math.round(n * 10) / 10;

function printTable(rows) {
  const withPeer = rows.some((r) => r.peer);
  const goalText = (goal) => (goal === null ? 'info' : `>= ${goal.toFixed(2)}`);
  const passText = (goal, pass) => (goal === null ? '' : pass ? 'ok' : 'BELOW');
  const header = ['case', 'router req/s', 'baseline req/s', 'ratio', 'goal', ''];
  if (withPeer) header.push('peer req/s', 'router/peer', 'peer goal', '');
  header.push('router CPU/req', 'baseline CPU/req', ...(withPeer ? ['peer CPU/req'] : []), 'router p99', 'baseline p99', ...(withPeer ? ['peer p99'] : []));
  const lines = rows.map((r) => {
    const line = [r.name, r.router.best.toFixed(0), r.baseline.best.toFixed(0), r.ratio.toFixed(2), goalText(r.goal), passText(r.goal, r.pass)];
    if (withPeer) {
      line.push(...(r.peer ? [r.peer.best.toFixed(0), r.peerRatio.toFixed(2), goalText(r.peerGoal), passText(r.peerGoal, r.peerPass)] : ['-', '-', '', '']));
    }
    line.push(`${r.router.cpuMicrosPerRequest.toFixed(0)} µs`, `${r.baseline.cpuMicrosPerRequest.toFixed(0)} µs`);
    if (withPeer) line.push(r.peer ? `${r.peer.cpuMicrosPerRequest.toFixed(0)} µs` : '-');
    line.push(`${r.router.latencyP99} ms`, `${r.baseline.latencyP99} ms`);
    if (withPeer) line.push(r.peer ? `${r.peer.latencyP99} ms` : '-');
    return line;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(fmt(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(fmt(line));
}

async function main() {
  const cases = selectedCases();
  const started = Date.now();
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const load = os.loadavg()[0];
  // The servers, the load generator and (often) mongod share the machine; other work skews ratios.
  const busyAtStart = load > cores * 0.5 ? `the machine was busy at start (load average ${load.toFixed(1)} on ${cores} cores)` : '';
  const cleanups = [];
  const cleanup = async () => {
    while (cleanups.length) {
      const fn = cleanups.pop();
      await Promise.resolve()
        .then(fn)
        .catch((error) => console.error('cleanup:', error.message));
    }
  };
  let interrupted = false;
  const onSignal = (signal) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${signal}: cleaning up (dropping the benchmark database)...`);
    cleanup().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    let mongo;
    let connection;
    const dbName = `cr_bench_${randomBytes(4).toString('hex')}`;
    try {
      mongo = await startMongo();
      cleanups.push(() => mongo.stop());
      connection = await connect(mongo.uri, dbName);
    } catch (error) {
      console.error(error instanceof MongoStartError ? error.message : `Could not start MongoDB: ${error.message}`);
      process.exitCode = 1;
      return;
    }
    cleanups.push(() => connection.close());
    cleanups.push(() => connection.dropDatabase());
    const buildInfo = await connection.db.admin().command({ buildInfo: 1 }).catch(() => ({}));
    if (busyAtStart) console.log(`warning: ${busyAtStart}`);
    console.log(
      `MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : 'mongodb-memory-server'} (reports ${buildInfo.version || '?'}), database ${dbName}`,
    );

    let t = Date.now();
    const seeded = await seed(connection, { posts: settings.posts });
    console.log(`seeded ${settings.posts} posts, ${seeded.authorIds.length} authors in ${Date.now() - t} ms`);

    t = Date.now();
    const router = await createRouterApp(connection);
    cleanups.push(() => router.close());
    const baseline = await createBaselineApp(connection);
    const peer = await createPeerApp(connection);
    const apps = [['router', router], ['baseline', baseline], ['peer', peer]];
    // The same router with the posts' response cache on (a second router on the database), only when a
    // selected case aims at it: its change feed should not run beside the other cases.
    if (cases.some((c) => SIDES.some((side) => c.target?.(side) === 'cached'))) {
      const cached = await createRouterApp(connection, { cache: true });
      cleanups.push(() => cached.close());
      apps.push(['cached', cached]);
    }
    const servers = {};
    for (const [side, built] of apps) {
      servers[side] = await listen(built.app);
      cleanups.push(() => closeServer(servers[side]));
    }
    const urls = Object.fromEntries(Object.keys(servers).map((side) => [side, `http://127.0.0.1:${servers[side].address().port}`]));
    console.log(`apps ready in ${Date.now() - t} ms: router ${urls.router}, baseline ${urls.baseline}, peer (express-restify-mongoose) ${urls.peer}`);

    const ctx = {
      seeded,
      connection,
      accessToken: router.accessToken,
      /** Which app a side of a case hits: its own by default; a case may aim both sides at the router. */
      urlOf(caseDef, side) {
        return urls[caseDef?.target?.(side) ?? side];
      },
      async call(side, { method = 'GET', path: urlPath, paths, headers, body }, caseDef) {
        const response = await fetch(this.urlOf(caseDef, side) + (urlPath || paths[0]), { method, headers, body });
        const text = await response.text();
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        return { status: response.status, headers: Object.fromEntries(response.headers), body: json };
      },
    };

    let restoreReads;
    if (settings.stubReads) {
      restoreReads = stubReads(require('mongoose'));
      cleanups.push(restoreReads);
      console.log('BENCH_STUB_READS: reads answer from memory after their first run (Node-side overhead only; create still writes)');
    }

    const loader = startLoader();
    cleanups.push(() => loader.stop());

    const measure = async (caseDef, side, duration) => {
      const request = caseDef.request(ctx, side);
      const cpuBefore = process.cpuUsage();
      const result = await loader.run({
        url: ctx.urlOf(caseDef, side),
        method: request.method,
        paths: request.paths,
        headers: request.headers,
        body: request.body,
        connections: settings.connections,
        duration,
      });
      await drain(servers[caseDef.target?.(side) ?? side]);
      const cpu = process.cpuUsage(cpuBefore);
      if (result.non2xx || result.errors || result.timeouts || !result.ok) {
        throw new Error(
          `${caseDef.name} (${side}): ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts out of ${result.ok + result.non2xx} responses`,
        );
      }
      return { ...result, cpuMicrosPerRequest: (cpu.user + cpu.system) / result.ok };
    };

    const rows = [];
    for (const caseDef of cases) {
      process.stdout.write(`${caseDef.name}: verifying... `);
      if (caseDef.verify) await caseDef.verify(ctx);
      process.stdout.write('warming up... ');
      // A case whose slow side may answer nothing within a short warmup (a cache MISS on a busy machine) asks for more.
      const sides = sidesOf(caseDef);
      for (const side of sides) await measure(caseDef, side, Math.max(settings.warmup, caseDef.minWarmup ?? 0));
      const runs = Object.fromEntries(sides.map((side) => [side, []]));
      for (let round = 1; round <= settings.rounds; round += 1) {
        for (const side of sides) {
          process.stdout.write(`${side} ${round}/${settings.rounds}... `);
          runs[side].push(await measure(caseDef, side, settings.duration));
        }
      }
      if (caseDef.cleanup) await caseDef.cleanup(ctx);
      const summary = Object.fromEntries(
        sides.map((side) => {
          const list = runs[side];
          const best = list.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
          return [
            side,
            {
              best: round1(best.reqPerSec),
              median: round1(median(list.map((r) => r.reqPerSec))),
              cpuMicrosPerRequest: round1(median(list.map((r) => r.cpuMicrosPerRequest))),
              latencyP50: best.latencyP50,
              latencyP99: best.latencyP99,
              rounds: list.map((r) => ({ ...r, reqPerSec: round1(r.reqPerSec), cpuMicrosPerRequest: round1(r.cpuMicrosPerRequest) })),
            },
          ];
        }),
      );
      const ratio = summary.router.best / summary.baseline.best;
      const thousandths = (n) => Math.round(n * 1000) / 1000;
      const peerRatio = summary.peer && summary.router.best / summary.peer.best;
      const peerGoal = settings.stubReads ? PEER_GOAL : null;
      // With reads stubbed only the Node side counts, and its goal is the stricter one.
      const goal = settings.stubReads && caseDef.stubbedGoal !== undefined ? caseDef.stubbedGoal : caseDef.goal;
      const row = {
        name: caseDef.name,
        description: caseDef.description,
        goal,
        ...summary,
        ratio: Math.round(ratio * 1000) / 1000,
        medianRatio: Math.round((summary.router.median / summary.baseline.median) * 1000) / 1000,
        cpuRatio: Math.round((summary.router.cpuMicrosPerRequest / summary.baseline.cpuMicrosPerRequest) * 1000) / 1000,
        pass: goal === null ? null : ratio >= goal,
        ...(summary.peer
          ? {
              peerRatio: thousandths(peerRatio),
              peerMedianRatio: thousandths(summary.router.median / summary.peer.median),
              peerCpuRatio: thousandths(summary.router.cpuMicrosPerRequest / summary.peer.cpuMicrosPerRequest),
              peerGoal,
              peerPass: peerGoal === null ? null : peerRatio >= peerGoal,
            }
          : {}),
      };
      rows.push(row);
      console.log(`${row.router.best.toFixed(0)} vs ${row.baseline.best.toFixed(0)}${row.peer ? ` vs ${row.peer.best.toFixed(0)} (peer)` : ''} req/s`);
    }

    console.log('');
    printTable(rows);
    console.log('');
    console.log(
      `req/s: best of ${settings.rounds} interleaved ${settings.duration}s rounds per side, ${settings.connections} connections; ` +
        'CPU/req: this process\'s CPU time (servers + driver; the load generator runs in a child) per response, median of rounds.',
    );
    if (rows.some((r) => r.peer)) {
      console.log(
        `router/peer: router req/s over express-restify-mongoose's; goal >= ${PEER_GOAL.toFixed(2)} on the Node side, ` +
          (settings.stubReads ? 'judged here (reads stubbed).' : 'so informational here (rerun with BENCH_STUB_READS=1 to judge it).'),
      );
    }
    console.log('Absolute numbers depend on the machine and the MongoDB server (an emulation such as mongo-java-server is far slower); compare ratios.');
    if (busyAtStart) console.log(`warning: ${busyAtStart}; expect noisy ratios, rerun on a quiet machine (or raise BENCH_ROUNDS).`);

    let population;
    if (wantsExtra(POPULATION_CASE)) {
      console.log('');
      // Round trips are the point here: reads go to the database even under BENCH_STUB_READS.
      if (restoreReads) restoreReads();
      const { rounds, duration, warmup, connections } = settings;
      population = await runPopulationBench(connection, { routerUrl: urls.router, rounds, duration, warmup, connections });
    }

    let uploads;
    if (wantsExtra(UPLOADS_CASE)) {
      console.log('');
      uploads = await runUploadsBench(connection);
    }

    const results = {
      date: new Date().toISOString(),
      node: process.version,
      machine: { cores, loadAverageAtStart: Math.round(load * 100) / 100 },
      mongo: { source: mongo.source, version: buildInfo.version || null },
      settings,
      durationSeconds: Math.round((Date.now() - started) / 100) / 10,
      cases: rows,
      ...(population ? { population } : {}),
      ...(uploads ? { uploads } : {}),
    };
    const file = path.join(__dirname, 'results.json');
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), file)} (${results.durationSeconds}s total)`);
  } finally {
    if (!interrupted) await cleanup();
  }
}

main().catch((error) => {
  console.error(`\nbench failed: ${error && error.stack ? error.stack : error}`);
  process.exitCode = 1;
});
