'use strict';
// Population in one round trip or two: `depth=1` on 20 posts with their author, the way the router does
// it today (lib/operations/populate.ts: the rows, then one `find({ _id: { $in: ids } })` on the related
// collection) against one `$lookup` aggregation. Both variants run in this process on the same mongoose
// connection, in interleaved rounds (the order flips each round), after checking that they give the same
// rows and that those are what the router itself answers for the same request.
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true npm run build && node bench/population.js
//   (npm run bench runs it too, after the request cases, unless BENCH_CASES leaves out `population`)
//
// Two row sets, each at 1 and at BENCH_CONNECTIONS concurrent callers: the list case's page (filter, sort,
// 20 rows of the seeded posts), where the rows query dominates, and the same query on a collection holding
// only those 20 posts, where the rows cost next to nothing and the population is most of the work. (Not
// 20 posts by `_id $in` among all of them: mongo-java-server uses the _id index for a find but not for an
// aggregation's $match, which would time that, not the population.)
// Always against the database: BENCH_STUB_READS does not apply (the stub
// would answer the batched finds from memory but not the aggregation). The server's `$lookup` cost is
// its own: an emulation such as mongo-java-server says little about a real mongod's.
// Knobs (env): BENCH_ROUNDS=2  BENCH_DURATION=3 (s)  BENCH_WARMUP=1 (s)  BENCH_CONNECTIONS=10  BENCH_POSTS=10000.

const assert = require('node:assert/strict');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { Schema, mongo } = require('mongoose');
const { postSchema } = require('./baseline-app');

const authorSchema = new Schema({ name: String, email: String }, { timestamps: true, versionKey: false, autoIndex: false, autoCreate: false });

const LIST_FILTER = { status: 'published', views: { $gte: 100 } };
const LIST_SORT = { publishedAt: -1, _id: -1 };
/** The router's answer to the list case with depth=1, for the cross-check. */
const ROUTER_LIST_PATH = '/api/posts?where[status][eq]=published&where[views][gte]=100&sort=-publishedAt&perPage=20&depth=1&count=false';

/** Today's path: the rows, then one query for all their authors, swapped in (a missing author stays an id). */
async function batched(Post, Author, rowsQuery) {
  const rows = await Post.find(rowsQuery.filter).sort(rowsQuery.sort).limit(20).lean();
  const ids = [...new Map(rows.filter((r) => r.author).map((r) => [String(r.author), r.author])).values()];
  if (!ids.length) return rows;
  const byId = new Map((await Author.find({ _id: { $in: ids } }).lean()).map((a) => [String(a._id), a]));
  for (const row of rows) if (row.author) row.author = byId.get(String(row.author)) ?? row.author;
  return rows;
}

/** One round trip: the same rows with `$lookup`; `$addFields` (mongo-java-server knows no `$set` stage). */
function lookup(Post, _Author, rowsQuery) {
  return Post.aggregate([
    { $match: rowsQuery.filter },
    { $sort: rowsQuery.sort },
    { $limit: 20 },
    { $lookup: { from: 'authors', localField: 'author', foreignField: '_id', as: '__author' } },
    { $addFields: { author: { $cond: [{ $gt: [{ $size: '$__author' }, 0] }, { $arrayElemAt: ['$__author', 0] }, '$author'] } } },
    { $project: { __author: 0 } },
  ]);
}

const VARIANTS = { batched, lookup };

/** Runs `fn` from `concurrency` callers for `seconds`; ops/s, latency p50/p99 (ms), this process's CPU per op. */
async function timeIt(fn, concurrency, seconds) {
  const latencies = [];
  const deadline = performance.now() + seconds * 1000;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const rows = await fn();
        if (rows.length !== 20) throw new Error(`expected 20 rows, got ${rows.length}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 100) / 100;
  return { ops: latencies.length, opsPerSec: latencies.length / elapsed, latencyP50: at(0.5), latencyP99: at(0.99), cpuMicrosPerOp: (cpu.user + cpu.system) / latencies.length };
}

const plain = (rows) => mongo.BSON.EJSON.serialize(rows, { relaxed: false });

/**
 * Measures both variants on the seeded `posts`/`authors` of `connection`. `routerUrl`: a router app serving
 * them at /api (bench/router-app.js), whose depth=1 answer must name the same posts and authors.
 * Returns the figures (also printed through `log`).
 */
async function runPopulationBench(connection, { routerUrl, rounds = 2, duration = 3, warmup = 1, connections = 10, log = console.log } = {}) {
  const Post = connection.models.PopulationPost || connection.model('PopulationPost', postSchema, 'posts');
  const Author = connection.models.PopulationAuthor || connection.model('PopulationAuthor', authorSchema, 'authors');
  // The list page's 20 posts alone in a collection of their own (dropped with the database).
  const Page = connection.models.PopulationPage || connection.model('PopulationPage', postSchema, 'population_page');
  await Page.deleteMany({});
  await Page.collection.insertMany(await Post.find(LIST_FILTER).sort(LIST_SORT).limit(20).lean());
  const listQuery = { filter: LIST_FILTER, sort: LIST_SORT };
  const shapes = [
    { name: 'list page', description: 'the list case on all posts: published, views >= 100, newest published first', Post, rowsQuery: listQuery },
    { name: '20 alone', description: 'the same query on a collection of those 20 posts only: the population is most of the work', Post: Page, rowsQuery: listQuery },
  ];

  const status = await connection.db.admin().command({ serverStatus: 1 }).catch(() => ({}));
  // mongo-java-server answers serverStatus with process "java"; a mongod says "mongod".
  const emulated = status.process === 'java';
  log('population (depth=1, 20 posts with their author): batched ($in, two round trips) vs $lookup (one)');
  log(
    emulated
      ? `  server: mongo-java-server (reports ${status.version}), an emulation: a real mongod's $lookup costs differ, rerun there before choosing`
      : `  server: ${status.process || 'MongoDB'} ${status.version || '?'}`,
  );

  // Same answers: the two variants agree on every shape, and with the router on the list page.
  for (const shape of shapes) {
    const [a, b] = await Promise.all([batched(shape.Post, Author, shape.rowsQuery), lookup(shape.Post, Author, shape.rowsQuery)]);
    assert.equal(a.length, 20, `population ${shape.name}: expected 20 rows`);
    assert.ok(a.every((row) => row.author && row.author.name), `population ${shape.name}: every row should carry its author record`);
    assert.deepStrictEqual(plain(b), plain(a), `population ${shape.name}: batched and $lookup answers differ`);
    if (shape.name === 'list page' && routerUrl) {
      const response = await fetch(routerUrl + ROUTER_LIST_PATH);
      if (response.status !== 200) throw new Error(`population: the router answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      const { data } = await response.json();
      const pairs = (rows) => rows.map((row) => [String(row.id ?? row._id), String(row.author.id ?? row.author._id), row.author.name]);
      assert.deepStrictEqual(pairs(a), pairs(data), 'population: the router\'s depth=1 answer names other posts or authors');
    }
  }
  log(`  verified: both variants return the same 20 rows and authors${routerUrl ? ', as the router\'s depth=1 list does' : ''}`);

  const results = [];
  for (const shape of shapes) {
    for (const concurrency of [...new Set([1, connections])]) {
      const run = (variant, seconds) => timeIt(() => VARIANTS[variant](shape.Post, Author, shape.rowsQuery), concurrency, seconds);
      for (const variant of Object.keys(VARIANTS)) await run(variant, warmup);
      const runs = { batched: [], lookup: [] };
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 ? ['lookup', 'batched'] : ['batched', 'lookup'];
        for (const variant of order) runs[variant].push(await run(variant, duration));
      }
      const best = (list) => list.reduce((x, y) => (y.opsPerSec > x.opsPerSec ? y : x));
      const summary = Object.fromEntries(
        Object.entries(runs).map(([variant, list]) => {
          const top = best(list);
          return [variant, { opsPerSec: Math.round(top.opsPerSec * 10) / 10, latencyP50: top.latencyP50, latencyP99: top.latencyP99, cpuMicrosPerOp: Math.round(top.cpuMicrosPerOp), rounds: list }];
        }),
      );
      const row = { rows: shape.name, description: shape.description, concurrency, ...summary, ratio: Math.round((summary.batched.opsPerSec / summary.lookup.opsPerSec) * 1000) / 1000 };
      results.push(row);
      log(
        `  ${shape.name.padEnd(9)} x${String(concurrency).padEnd(3)} batched ${row.batched.opsPerSec.toFixed(0).padStart(5)} ops/s (p50 ${row.batched.latencyP50} ms, ${row.batched.cpuMicrosPerOp} µs CPU)` +
          `  $lookup ${row.lookup.opsPerSec.toFixed(0).padStart(5)} ops/s (p50 ${row.lookup.latencyP50} ms, ${row.lookup.cpuMicrosPerOp} µs CPU)  batched/$lookup ${row.ratio.toFixed(2)}`,
      );
    }
  }
  log(`  ops/s: best of ${rounds} interleaved ${duration}s rounds per variant; CPU: this process's (driver, mongoose, stitching) per op.`);
  return { server: { process: status.process || null, version: status.version || null, emulated }, rounds, duration, results };
}

module.exports = { runPopulationBench };

if (require.main === module) {
  const { MongoStartError, startMongo, connect, redact } = require('../example-app/mongo');
  const { seed } = require('./seed');
  const { createRouterApp } = require('./router-app');
  const env = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
  (async () => {
    let mongoServer;
    let connection;
    let router;
    let server;
    try {
      mongoServer = await startMongo();
      connection = await connect(mongoServer.uri, `cr_bench_population_${randomBytes(4).toString('hex')}`);
      console.log(`MongoDB: ${mongoServer.source === 'MONGODB_URI' ? redact(mongoServer.uri) : 'mongodb-memory-server'}`);
      await seed(connection, { posts: env('BENCH_POSTS', 10000) });
      router = await createRouterApp(connection);
      server = router.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const result = await runPopulationBench(connection, {
        routerUrl: `http://127.0.0.1:${server.address().port}`,
        rounds: env('BENCH_ROUNDS', 2),
        duration: env('BENCH_DURATION', 3),
        warmup: env('BENCH_WARMUP', 1),
        connections: env('BENCH_CONNECTIONS', 10),
      });
      fs.writeFileSync(path.join(__dirname, 'results-population.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...result }, null, 2)}\n`);
    } catch (error) {
      console.error(error instanceof MongoStartError ? error.message : `population bench failed: ${error && error.stack ? error.stack : error}`);
      process.exitCode = 1;
    } finally {
      if (server) await new Promise((resolve) => server.close(resolve));
      if (router) await router.close();
      if (connection) {
        await connection.dropDatabase().catch(() => undefined);
        await connection.close();
      }
      if (mongoServer) await mongoServer.stop();
    }
  })();
}
