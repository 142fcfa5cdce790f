'use strict';
// `npm run build && node bench/openapi-docs.js`: what the docs cost. Times one uncached build of the
// OpenAPI document for the benchmark's config, then serves GET /api/docs/openapi.json (cached per mount
// path) and, as the baseline measured in the same run, GET /api/posts?perPage=10 on an empty collection.
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true node bench/openapi-docs.js
//
// Knobs (env): BENCH_DURATION=3 (s)  BENCH_CONNECTIONS=10. Prints one JSON line.

const { performance } = require('node:perf_hooks');
const autocannon = require('autocannon');
const express = require('express');
const mongoose = require('mongoose');
const { contentRouter } = require('content-router');
const { benchConfig } = require('./router-app');

const duration = Number(process.env.BENCH_DURATION || 3);
const connections = Number(process.env.BENCH_CONNECTIONS || 10);

function run(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, duration, connections }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

async function main() {
  const connection = mongoose.createConnection(process.env.MONGODB_URI, { dbName: `bench_docs_${process.pid}` });
  const api = contentRouter({ ...benchConfig(connection), logger: { error: () => undefined, warn: () => undefined } });
  await api.ready;
  const app = express();
  app.use('/api', api);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    // Different mount paths each build a document once: time the first request at fresh paths.
    const builds = [];
    for (let i = 0; i < 10; i++) {
      app.use(`/m${i}`, api);
      const start = performance.now();
      const res = await fetch(`${base}/m${i}/docs/openapi.json`);
      await res.arrayBuffer();
      builds.push(performance.now() - start);
    }
    const cachedFirst = await fetch(`${base}/api/docs/openapi.json`).then((r) => r.text());
    const docs = await run(`${base}/api/docs/openapi.json`);
    const list = await run(`${base}/api/posts?perPage=10`);
    builds.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        documentBytes: Buffer.byteLength(cachedFirst),
        firstRequestAtNewMountMs: { median: +builds[5].toFixed(1), min: +builds[0].toFixed(1) },
        docsRps: Math.round(docs.requests.average),
        listRps: Math.round(list.requests.average),
        docsOverList: +(docs.requests.average / list.requests.average).toFixed(2),
        errors: docs.errors + docs.non2xx + list.errors + list.non2xx,
      }),
    );
  } finally {
    server.close();
    await api.close();
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
