'use strict';
// CPU time per request, router vs the hand-written baseline, reads answered from memory (bench/stub-reads.js):
// requests are sent one at a time over a keep-alive connection from this same process, in interleaved
// rounds, and the process's CPU time is divided by the requests served. One request at a time makes the
// figure a cost, not a throughput: it holds on a busy machine, where req/s swing with the neighbours.
// The client's share is the same for both sides, so the ratio understates the server-side difference.
//
//   MONGODB_URI=... node bench/cpu-per-request.js     (BENCH_CPU_REQUESTS=2000 BENCH_ROUNDS=5)
//
// Run by `npm run bench`; prints µs/request per side and router/baseline for list and get, anonymous
// and with a JWT, and writes bench/results-cpu.json.

const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { startMongo, connect, redact } = require('../example-app/mongo');
const { seed } = require('./seed');
const { createRouterApp } = require('./router-app');
const { createBaselineApp } = require('./baseline-app');
const { stubReads } = require('./stub-reads');

const REQUESTS = Number(process.env.BENCH_CPU_REQUESTS || 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
/** The goal for the router's Node-side cost: within 5% of the hand-written handler. */
const GOAL = 0.95;

function listen(app) {
  return new Promise((resolve) => {
    const server = http.createServer(app);
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function get(agent, port, pathName, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathName, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${pathName}: HTTP ${res.statusCode} ${Buffer.concat(chunks)}`))));
    });
    req.on('error', reject);
  });
}

/** CPU µs per request for `count` sequential GETs rotating over `paths`. */
async function measure(agent, port, paths, headers, count) {
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) await get(agent, port, paths[i % paths.length], headers);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

/** The least CPU a round took: neighbours on a shared machine only ever add to it. */
const best = (values) => Math.min(...values);

async function main() {
  const mongo = await startMongo();
  const dbName = `cr_cpu_${randomBytes(4).toString('hex')}`;
  const connection = await connect(mongo.uri, dbName);
  console.log(`MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : 'mongodb-memory-server'}, database ${dbName}`);
  const servers = [];
  let router;
  try {
    const seeded = await seed(connection, { posts: 2000 });
    router = await createRouterApp(connection);
    // The baseline verifies the same tokens: a hand-written app with bearer auth (jsonwebtoken, user by id).
    const baseline = await createBaselineApp(connection, { jwtSecret: router.jwtSecret });
    const routerServer = await listen(router.app);
    const baselineServer = await listen(baseline.app);
    servers.push(routerServer, baselineServer);
    const restore = stubReads(require('mongoose'));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ids = seeded.postIds.slice(0, 200);
    const jwt = { authorization: `Bearer ${router.accessToken}` };
    const cases = [
      {
        name: 'list',
        router: ['/api/posts?where[status][eq]=published&where[views][gte]=100&sort=-publishedAt&perPage=20'],
        baseline: ['/api/posts?status=published&minViews=100&perPage=20'],
      },
      { name: 'get', router: ids.map((id) => `/api/posts/${id}`), baseline: ids.map((id) => `/api/posts/${id}`) },
    ];
    const results = [];
    for (const c of cases) {
      for (const auth of ['anonymous', 'JWT']) {
        const headers = auth === 'JWT' ? jwt : {};
        // Warm-up: JIT, the stub's memo, the router's parsed-query memo.
        await measure(agent, routerServer.address().port, c.router, headers, 500);
        await measure(agent, baselineServer.address().port, c.baseline, headers, 500);
        const sides = { router: [], baseline: [] };
        for (let round = 0; round < ROUNDS; round++) {
          sides.router.push(await measure(agent, routerServer.address().port, c.router, headers, REQUESTS));
          sides.baseline.push(await measure(agent, baselineServer.address().port, c.baseline, headers, REQUESTS));
        }
        const r = best(sides.router);
        const b = best(sides.baseline);
        // A cost ratio: baseline/router, so above 1 means the router costs less (like the req/s ratios).
        results.push({ case: c.name, auth, routerMicros: Math.round(r), baselineMicros: Math.round(b), ratio: Number((b / r).toFixed(2)), goal: GOAL });
      }
    }
    restore();
    agent.destroy();
    console.log('\ncase  auth       router µs/req  baseline µs/req  baseline/router  goal');
    for (const row of results) {
      console.log(`${row.case.padEnd(5)} ${row.auth.padEnd(10)} ${String(row.routerMicros).padStart(13)}  ${String(row.baselineMicros).padStart(15)}  ${row.ratio.toFixed(2).padStart(15)}  >= ${GOAL} ${row.ratio >= GOAL ? 'ok' : 'BELOW'}`);
    }
    console.log(`\nCPU time of this process (servers, driver and the one-at-a-time client) per request, best of ${ROUNDS} interleaved rounds of ${REQUESTS}; reads stubbed.`);
    console.log('JWT rows: both sides verify the same bearer token (HS256) and load its user; the baseline with jsonwebtoken and findById.');
    fs.writeFileSync(path.join(__dirname, 'results-cpu.json'), `${JSON.stringify({ at: new Date().toISOString(), requests: REQUESTS, rounds: ROUNDS, results }, null, 2)}\n`);
  } finally {
    for (const server of servers) server.close();
    await router?.close();
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await mongo.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
