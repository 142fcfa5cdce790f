'use strict';
// What an agent's read costs over MCP against the same read over REST, in the same process and run: a page of
// 10 records, by `tools/call find` (one stateless JSON-RPC POST, the 2025 era most agents speak, with a server
// built for the caller: its schema asked, its tools registered) and by `GET /posts?limit=10&cursor=` (the
// same operation, the same envelope). Each side runs ROUNDS requests one after another, interleaved in blocks
// so both see the same machine; the ratio is of the router process's CPU per request, and of wall time.
//
//   MONGODB_URI=... node bench/mcp.js        (BENCH_MCP_ROUNDS=400)
//
// Run by `npm run bench`; writes bench/results-mcp.json. There is no goal to meet: the figure says what the
// protocol and the per-caller server cost on top of the operation (docs/performance.md).

const fs = require('node:fs');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const express = require('express');
const { contentRouter } = require('content-router');
const { MongoStartError, startMongo, connect, redact } = require('../example-app/mongo');

const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS || 400);
const BLOCK = 50;

function config(connection) {
  return {
    db: { connection },
    logger: { error: console.error, warn: console.warn, info: () => undefined },
    warnings: { unindexedSorts: false },
    mcp: true,
    collections: [
      {
        slug: 'posts',
        access: { read: () => true, create: () => true },
        fields: { title: { type: 'text', required: true }, body: { type: 'textarea' }, views: { type: 'number' } },
      },
    ],
  };
}

const FIND = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'find', arguments: { collection: 'posts', limit: 10 } } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

async function rest(base) {
  const res = await fetch(`${base}/posts?limit=10&cursor=`);
  if (res.status !== 200) throw new Error(`GET /posts: HTTP ${res.status}`);
  return (await res.json()).data.length;
}

async function mcp(base) {
  const res = await fetch(`${base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: FIND });
  const answer = await res.json();
  if (res.status !== 200 || answer.result?.isError) throw new Error(`tools/call find: HTTP ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.result.structuredContent.data.length;
}

/** CPU microseconds and wall milliseconds of `count` calls of `run`, one after another. */
async function measure(run, base, count) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) if ((await run(base)) !== 10) throw new Error('a page of 10 records was expected');
  const used = process.cpuUsage(cpu);
  return { cpuUs: used.user + used.system, wallMs: performance.now() - started };
}

async function main() {
  const mongo = await startMongo();
  const connection = await connect(mongo.uri, `cr_mcp_${randomBytes(4).toString('hex')}`);
  const api = contentRouter(config(connection));
  const app = express();
  app.use('/api', api);
  const server = app.listen(0, '127.0.0.1');
  try {
    await api.ready;
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${server.address().port}/api`;
    await api.local.createMany('posts', Array.from({ length: 50 }, (_, i) => ({ title: `Post ${i}`, body: 'x'.repeat(400), views: i })));
    // Warm both paths (JIT, pools, the per-request server's first build).
    await measure(rest, base, 50);
    await measure(mcp, base, 50);
    const totals = { rest: { cpuUs: 0, wallMs: 0 }, mcp: { cpuUs: 0, wallMs: 0 } };
    for (let done = 0; done < ROUNDS; done += BLOCK) {
      for (const [name, run] of [['rest', rest], ['mcp', mcp]]) {
        const block = await measure(run, base, BLOCK);
        totals[name].cpuUs += block.cpuUs;
        totals[name].wallMs += block.wallMs;
      }
    }
    const per = (side) => ({ cpuUsPerRequest: Math.round(side.cpuUs / ROUNDS), wallMsPerRequest: Number((side.wallMs / ROUNDS).toFixed(3)) });
    const result = {
      at: new Date().toISOString(),
      rounds: ROUNDS,
      mongo: mongo.source,
      rest: per(totals.rest),
      mcp: per(totals.mcp),
      cpuRatio: Number((totals.mcp.cpuUs / totals.rest.cpuUs).toFixed(2)),
      wallRatio: Number((totals.mcp.wallMs / totals.rest.wallMs).toFixed(2)),
    };
    console.log(`\nMCP find vs REST list, a page of 10 (MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : mongo.source})`);
    console.log(`REST: ${result.rest.cpuUsPerRequest} µs CPU, ${result.rest.wallMsPerRequest} ms per request`);
    console.log(`MCP:  ${result.mcp.cpuUsPerRequest} µs CPU, ${result.mcp.wallMsPerRequest} ms per request`);
    console.log(`MCP / REST: ${result.cpuRatio}x CPU, ${result.wallRatio}x wall time`);
    fs.writeFileSync(path.join(__dirname, 'results-mcp.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    server.close();
    await api.close();
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await mongo.stop();
  }
}

main().catch((error) => {
  if (error instanceof MongoStartError) console.error(error.message);
  else console.error(error);
  process.exitCode = 1;
});
