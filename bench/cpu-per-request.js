'use strict';
// Server CPU per request: the router against the hand-written baseline, and the router against the peer
// (express-restify-mongoose), reads answered from memory (bench/stub-reads.js), over real keep-alive sockets.
// The create case (router and baseline only) still inserts into the database; its relation check is a read,
// answered from memory on both sides like the others.
//
// Why not req/s: on a small shared machine neighbours swing req/s by 10% between rounds, more than the
// differences measured here. So the servers run in one child process and this process sends one request
// at a time, alternating two sides request by request, so any drift of the machine falls on both alike.
// The child attributes its CPU time to a side by the interval between one 'request' event and the next:
// the handling of that request, its write, and the parse of the following request (which belongs to the
// other side as often as to its own). The load generator's own CPU is not counted. Reported: mean and
// median µs per request per side, and the ratios.
//
// Each ratio is measured between the two sides it compares: router and baseline alternate in one run,
// router and peer in another. Alternating all three at once tilts both ratios against the side with the
// larger code (the router): a side's code and data are colder in the CPU's caches when a third side's
// request runs between two of its own, and the peer allocates the most, so the others pay for part of
// its garbage collection. BENCH_CPU_THREE_WAY=1 measures that way instead (anonymous rows only add the peer),
// for comparison.
//
// The router against itself: list-hooks alternates the same list on two routers that differ only by one
// trivial afterRead hook on the posts (the ratio is what running hooks costs), list-field-access by one
// field read rule (bench/router-app.js, createVariantApps). Those routers are built only when these cases run.
// patch-if-match alternates one router's PATCH of a post with If-Match (the ETag of its last answer) and without
// (two servers on the same app, each side its own 100 posts); reads reach the database during that case, since
// an If-Match write reads the record it compares. get-before and list-before alternate the router's get (list)
// with the same request on another build of the package (BENCH_CPU_BEFORE=<its directory>, e.g. a worktree of
// an earlier commit, built), after checking that both answer the same bytes with the same ETag: what a change
// between the two builds costs. BENCH_READ_RULE=where and BENCH_READ_HOOK=1 (bench/router-app.js) give every
// router's posts a read rule answering a where, or one trivial afterRead hook, for those comparisons.
// patch-versioned alternates the same PATCH on a router whose posts keep their history (versions: true) and on one
// whose posts do not (reads reach the database, and the versioned side's writes add a version each); list-drafts the
// public list of 20 on a router whose posts have drafts and on a plain one.
// BENCH_CPU_PROFILE=<dir>: the server process writes a V8 CPU profile there.
//
//   MONGODB_URI=... node bench/cpu-per-request.js      (BENCH_CPU_REQUESTS=4000 per side and run: list and get run
//   anonymous, then with a JWT; create and list-hooks anonymous only. BENCH_CPU_CASES=create,patch-versioned picks cases;
//   get-before and list-before run only with BENCH_CPU_BEFORE.)
//
// Run by `npm run bench`; writes bench/results-cpu.json.

const assert = require('node:assert/strict');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { fork } = require('node:child_process');

const REQUESTS = Number(process.env.BENCH_CPU_REQUESTS || 4000);
const THREE_WAY = process.env.BENCH_CPU_THREE_WAY === '1';
const WANTED = (process.env.BENCH_CPU_CASES || '').split(',').map((s) => s.trim()).filter(Boolean);
const WARMUP = 1500;
/**
 * The project's goals for the router's Node-side cost: reads cost at most what the hand-written handler's do,
 * half the peer's; a create at least 0.85 of the hand-written create doing the same checks.
 */
const GOAL = 1;
const CREATE_GOAL = 0.85;
const PEER_GOAL = 2;
/** The hooks' goal: a list of 20 with one trivial afterRead hook costs at most 10% more CPU than without. */
const HOOKS_GOAL = 1.1;
/**
 * Versions: a PATCH of a versioned post (one insert more, in a transaction where the server has them) costs at
 * most 1.3x the CPU of the same PATCH of a plain one; a list of published posts on a drafts collection costs
 * what it costs on a plain one, within 3%.
 */
const VERSIONED_PATCH_GOAL = 1.3;
const DRAFTS_LIST_GOAL = 1.03;
/** Router-against-router cases: the variants of bench/router-app.js each measures, with hook or rule first. */
const VARIANT_CASES = {
  'list-hooks': ['hooked', 'plain'],
  'list-field-access': ['fieldAccess', 'plain'],
  'patch-versioned': ['versioned', 'plain'],
  'list-drafts': ['drafts', 'plain'],
};
const wanted = (name) => WANTED.length === 0 || WANTED.includes(name);
/** Another build of the package (its directory) for get-before and list-before; unset: they do not run. */
const BEFORE = process.env.BENCH_CPU_BEFORE ? path.resolve(process.env.BENCH_CPU_BEFORE) : undefined;

// ---- the server side (child process) ----

async function serve() {
  const { startMongo, connect } = require('../example-app/mongo');
  const { randomBytes } = require('node:crypto');
  const { seed } = require('./seed');
  const { createRouterApp, createVariantApps } = require('./router-app');
  const { createBaselineApp } = require('./baseline-app');
  const { createPeerApp, PEER_LIST_PATH } = require('./peer-app');
  const { stubReads } = require('./stub-reads');
  const mongo = await startMongo();
  const dbName = `cr_cpu_${randomBytes(4).toString('hex')}`;
  const connection = await connect(mongo.uri, dbName);
  const seeded = await seed(connection, { posts: 2000 });
  const router = await createRouterApp(connection);
  // The baseline verifies the same tokens: a hand-written app with bearer auth (jsonwebtoken, user by id).
  const baseline = await createBaselineApp(connection, { jwtSecret: router.jwtSecret });
  const peer = await createPeerApp(connection);
  const variantNames = [...new Set(Object.entries(VARIANT_CASES).filter(([name]) => wanted(name)).flatMap(([, sides]) => sides))];
  const variants = variantNames.length ? await createVariantApps(connection, router, variantNames) : undefined;
  // The same router app on a second server: patch-if-match's side with If-Match.
  const extra = wanted('patch-if-match') ? [['ifMatch', router.app]] : [];
  let before;
  if (BEFORE && (wanted('get-before') || wanted('list-before'))) {
    const express = require('express');
    const { benchConfig } = require('./router-app');
    const config = benchConfig(connection);
    config.auth.jwtSecret = router.jwtSecret;
    before = require(BEFORE).contentRouter({ ...config, logger: { error: console.error, warn: console.warn, info: () => undefined } });
    await before.ready;
    const app = express();
    app.disable('x-powered-by');
    app.use('/api', before);
    extra.push(['before', app]);
  }

  const samples = {};
  let recording = false;
  let previous = null;
  let previousSide = null;
  const servers = {};
  for (const [side, app] of [['router', router.app], ['baseline', baseline.app], ['peer', peer.app], ...Object.entries(variants?.apps ?? {}), ...extra]) {
    const server = http.createServer();
    // Registered before the app: the interval since the last request event belongs to that request's side.
    server.on('request', () => {
      const now = process.cpuUsage();
      if (recording && previous) (samples[previousSide] ||= []).push(now.user + now.system - previous.user - previous.system);
      previous = now;
      previousSide = side;
    });
    server.on('request', app);
    server.keepAliveTimeout = 60_000;
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers[side] = server;
  }
  let restore = stubReads(require('mongoose'));
  process.on('message', async (message) => {
    if (message === 'real-reads' || message === 'stub-reads') {
      // A case whose writes read what they write turns the stub off while it runs (a fresh memo after).
      restore();
      restore = message === 'real-reads' ? () => undefined : stubReads(require('mongoose'));
      process.send(message);
    } else if (message === 'start') {
      for (const key of Object.keys(samples)) delete samples[key];
      previous = null;
      if (variants) variants.afterReadCalls.calls = 0;
      recording = true;
      process.send('started');
    } else if (message === 'stop') {
      recording = false;
      process.send({ samples, afterReadCalls: variants?.afterReadCalls.calls ?? 0 });
    } else if (message === 'exit') {
      restore();
      for (const server of Object.values(servers)) server.close();
      await router.close();
      await variants?.close();
      await before?.close();
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
      await mongo.stop();
      process.exit(0);
    }
  });
  process.send({
    ports: Object.fromEntries(Object.entries(servers).map(([side, server]) => [side, server.address().port])),
    token: router.accessToken,
    ids: seeded.postIds.slice(0, 200).map(String),
    authorId: String(seeded.authorIds[0]),
    peerListPath: PEER_LIST_PATH,
    mongo: mongo.source,
  });
}

// ---- the client side (this process) ----

/** One request; resolves with the answer's headers once it (of status `expect`) has been read. */
function send(agent, port, { method = 'GET', path: pathName, headers, body, expect = 200 }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathName, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === expect ? resolve(res.headers) : reject(new Error(`${method} ${pathName}: HTTP ${res.statusCode} ${Buffer.concat(chunks)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One GET; resolves with its status and parsed body. */
function fetchJson(port, pathName, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathName, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One GET; resolves with its status, body text and ETag. */
function fetchText(port, pathName, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathName, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString(), etag: res.headers.etag }));
    });
    req.on('error', reject);
    req.end();
  });
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  // BENCH_CPU_PROFILE=<dir>: the server process writes a V8 CPU profile there (both sides, warm-up included).
  const execArgv = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROFILE)}`] : [];
  const child = fork(__filename, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  const next = () => new Promise((resolve, reject) => {
    const exited = (code) => reject(new Error(`the server process exited (${code})`));
    child.once('exit', exited);
    child.once('message', (message) => {
      child.off('exit', exited);
      resolve(message);
    });
  });
  const info = await next();
  const tell = async (message) => {
    child.send(message);
    await next();
  };
  const jwt = { authorization: `Bearer ${info.token}` };
  const postBody = JSON.stringify({
    title: 'Benchmark post',
    body: 'Written by the benchmark. '.repeat(10).trim(),
    status: 'draft',
    views: 0,
    tags: ['bench', 'perf'],
    author: info.authorId,
    featured: false,
  });
  const listPath = '/api/posts?where[status][eq]=published&where[views][gte]=100&sort=-publishedAt&perPage=20';
  const allCases = [
    {
      name: 'list',
      paths: {
        router: [listPath],
        baseline: ['/api/posts?status=published&minViews=100&perPage=20'],
        peer: [info.peerListPath],
      },
    },
    { name: 'get', paths: { router: info.ids.map((id) => `/api/posts/${id}`), baseline: info.ids.map((id) => `/api/posts/${id}`), peer: info.ids.map((id) => `/api/posts/${id}`) } },
    // The peer does not check the author: its create is no like-for-like, so it is left out.
    {
      name: 'create',
      method: 'POST',
      body: postBody,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(postBody)) },
      expect: 201,
      auths: ['anonymous'],
      noPeer: true,
      goal: CREATE_GOAL,
      paths: { router: ['/api/posts'], baseline: ['/api/posts'] },
    },
    // Router against router: the same list of 20 with and without one trivial afterRead hook (20 calls a request).
    { name: 'list-hooks', sides: VARIANT_CASES['list-hooks'], auths: ['anonymous'], goal: HOOKS_GOAL, afterReadCalls: 20, paths: { hooked: [listPath], plain: [listPath] } },
    // With and without a read rule on one field: anonymous callers are denied it (a view with the field hidden:
    // their records lack its `null`), a JWT's user may read it (the rule asked, every field shown). No goal.
    {
      name: 'list-field-access',
      sides: VARIANT_CASES['list-field-access'],
      goal: null,
      afterReadCalls: 0,
      unreadable: { anonymous: 'editorNote' },
      paths: { fieldAccess: [listPath], plain: [listPath] },
    },
  ];
  // patch-if-match: each side PATCHes its own 100 posts; the If-Match side sends the ETag of its last answer.
  const patchIds = { ifMatch: info.ids.slice(0, 100), router: info.ids.slice(100, 200) };
  const tags = new Map();
  let views = 0;
  const patchOf = (side, i, tag) => {
    const id = patchIds[side][i % patchIds[side].length];
    const body = JSON.stringify({ views: ++views });
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (side === 'ifMatch') headers['if-match'] = tag ?? tags.get(id) ?? '*';
    return { method: 'PATCH', path: `/api/posts/${id}`, headers, body, onAnswer: (answered) => tags.set(id, answered.etag) };
  };
  const agent = () => new http.Agent({ keepAlive: false });
  allCases.push({
    name: 'patch-if-match',
    sides: ['ifMatch', 'router'],
    auths: ['anonymous'],
    goal: null,
    realReads: true,
    request: patchOf,
    // Both sides write; the If-Match side's tag is a strong one that a stale copy fails (412, nothing written).
    async verify() {
      for (const side of this.sides) {
        const request = patchOf(side, 0);
        request.onAnswer(await send(agent(), info.ports[side], request));
      }
      const stale = tags.get(patchIds.ifMatch[0]);
      assert.ok(stale && !stale.startsWith('W/'), `patch-if-match: a strong ETag, not ${stale}`);
      const next = patchOf('ifMatch', 0);
      next.onAnswer(await send(agent(), info.ports.ifMatch, next));
      await send(agent(), info.ports.ifMatch, { ...patchOf('ifMatch', 0, stale), expect: 412 });
    },
  });
  // patch-versioned: the same PATCH of a post on a router that keeps the posts' history and on one that does not,
  // each side its own 100 posts. list-drafts: the public list on a drafts collection and on a plain one.
  const versionedIds = { versioned: info.ids.slice(0, 100), plain: info.ids.slice(100, 200) };
  const patchVersioned = (side, i) => {
    const body = JSON.stringify({ views: ++views });
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    return { method: 'PATCH', path: `/api/posts/${versionedIds[side][i % 100]}`, headers, body, onAnswer: () => undefined };
  };
  allCases.push(
    {
      name: 'patch-versioned',
      sides: VARIANT_CASES['patch-versioned'],
      auths: ['anonymous'],
      goal: VERSIONED_PATCH_GOAL,
      realReads: true,
      request: patchVersioned,
      async verify() {
        for (const side of this.sides) await send(agent(), info.ports[side], patchVersioned(side, 0));
      },
    },
    { name: 'list-drafts', sides: VARIANT_CASES['list-drafts'], auths: ['anonymous'], goal: DRAFTS_LIST_GOAL, afterReadCalls: 0, paths: { drafts: [listPath], plain: [listPath] } },
  );
  if (BEFORE) {
    // The same get (and list) on the router and on the other build: the same answers, byte for byte.
    const before = (name, paths) => ({
      name,
      sides: ['router', 'before'],
      goal: null,
      paths: { router: paths, before: paths },
      async verify(headers) {
        const [now, then] = await Promise.all(this.sides.map((side) => fetchText(info.ports[side], this.paths[side][0], headers)));
        assert.equal(now.status, 200, `${name} (router): HTTP ${now.status}`);
        assert.equal(now.body, then.body, `${name}: the two builds answer differently`);
        assert.equal(now.etag, then.etag, `${name}: the two builds tag the answer differently`);
      },
    });
    allCases.push(before('get-before', info.ids.map((id) => `/api/posts/${id}`)), before('list-before', [listPath]));
  } else if (WANTED.some((name) => name.endsWith('-before'))) {
    throw new Error('BENCH_CPU_CASES: get-before and list-before need BENCH_CPU_BEFORE=<the directory of another build of the package>');
  }
  const unknown = WANTED.filter((name) => !allCases.some((c) => c.name === name));
  if (unknown.length) throw new Error(`BENCH_CPU_CASES: unknown case(s) ${unknown.join(', ')}; known: ${allCases.map((c) => c.name).join(', ')}`);
  const cases = WANTED.length ? allCases.filter((c) => WANTED.includes(c.name)) : allCases;
  /** Alternates `sides` request by request; returns each side's mean and median µs. */
  async function measure(c, headers, sides) {
    const agents = Object.fromEntries(sides.map((side) => [side, new http.Agent({ keepAlive: true, maxSockets: 1 })]));
    const one = async (side, i) => {
      if (!c.request) return send(agents[side], info.ports[side], { method: c.method, path: c.paths[side][i % c.paths[side].length], headers: { ...c.headers, ...headers }, body: c.body, expect: c.expect });
      const request = c.request(side, i);
      request.onAnswer(await send(agents[side], info.ports[side], { ...request, headers: { ...request.headers, ...headers } }));
    };
    // Warm-up: JIT, the stub's memo, the router's parsed-query memo and verified tokens.
    for (let i = 0; i < WARMUP; i++) for (const side of sides) await one(side, i);
    child.send('start');
    await next();
    for (let i = 0; i < REQUESTS; i++) {
      for (let j = 0; j < sides.length; j++) await one(sides[(i + j) % sides.length], i);
    }
    child.send('stop');
    const { samples, afterReadCalls } = await next();
    for (const agent of Object.values(agents)) agent.destroy();
    // A hook that did not run on every record would flatter the hooked side.
    if (c.afterReadCalls !== undefined && afterReadCalls !== c.afterReadCalls * REQUESTS) {
      throw new Error(`${c.name}: the afterRead hook ran ${afterReadCalls} times, not ${c.afterReadCalls * REQUESTS}`);
    }
    return Object.fromEntries(sides.map((side) => [side, { mean: mean(samples[side]), median: median(samples[side]) }]));
  }
  /**
   * Before a router-against-router case: both sides answer 200 with the same full page, but for the field
   * the first side's caller may not read (`unreadable`), which it must leave out.
   */
  async function verifySame(c, auth, headers) {
    const answers = await Promise.all(c.sides.map((side) => fetchJson(info.ports[side], c.paths[side][0], headers)));
    for (const [index, answer] of answers.entries()) {
      if (answer.status !== 200 || answer.body.data?.length !== 20) throw new Error(`${c.name} (${c.sides[index]}): HTTP ${answer.status}, ${JSON.stringify(answer.body).slice(0, 200)}`);
    }
    const [withIt, without] = answers.map((answer) => answer.body);
    const field = c.unreadable?.[auth];
    if (field) {
      assert.ok(withIt.data.every((record) => !(field in record)), `${c.name}: ${field} shown to a caller who may not read it`);
      for (const record of without.data) delete record[field];
    }
    assert.deepStrictEqual(withIt, without, `${c.name}: ${c.sides.join(' and ')} answer differently`);
  }
  // Cost ratios the way round that reads like speed: above 1 means the router costs less.
  const ratios = (other, router) => ({ ratio: Number((other.mean / router.mean).toFixed(3)), medianRatio: Number((other.median / router.median).toFixed(3)) });

  const results = [];
  const overheads = [];
  try {
    for (const c of cases) {
      for (const auth of c.auths ?? ['anonymous', 'JWT']) {
        const headers = auth === 'JWT' ? jwt : {};
        if (c.sides) {
          // Cost ratios the other way round: the side with the hook (or rule) over the side without, at most the goal.
          if (c.realReads) await tell('real-reads');
          await (c.verify ? c.verify(headers) : verifySame(c, auth, headers));
          const [withIt, without] = c.sides;
          const m = await measure(c, headers, c.sides);
          if (c.realReads) await tell('stub-reads');
          overheads.push({
            case: c.name,
            auth,
            with: withIt,
            without,
            withMicros: Math.round(m[withIt].mean),
            withoutMicros: Math.round(m[without].mean),
            ratio: Number((m[withIt].mean / m[without].mean).toFixed(3)),
            medianRatio: Number((m[withIt].median / m[without].median).toFixed(3)),
            goal: c.goal,
          });
          continue;
        }
        // The peer has no bearer auth of its own: it runs in the anonymous rows only.
        const withPeer = auth === 'anonymous' && !c.noPeer;
        let vsBaseline;
        let vsPeer;
        if (THREE_WAY) {
          vsBaseline = await measure(c, headers, withPeer ? ['router', 'baseline', 'peer'] : ['router', 'baseline']);
          vsPeer = withPeer ? vsBaseline : undefined;
        } else {
          vsBaseline = await measure(c, headers, ['router', 'baseline']);
          vsPeer = withPeer ? await measure(c, headers, ['router', 'peer']) : undefined;
        }
        const baseline = ratios(vsBaseline.baseline, vsBaseline.router);
        const peer = vsPeer && ratios(vsPeer.peer, vsPeer.router);
        results.push({
          case: c.name,
          auth,
          routerMicros: Math.round(vsBaseline.router.mean),
          baselineMicros: Math.round(vsBaseline.baseline.mean),
          ratio: baseline.ratio,
          medianRatio: baseline.medianRatio,
          goal: c.goal ?? GOAL,
          ...(vsPeer && {
            routerMicrosVsPeer: Math.round(vsPeer.router.mean),
            peerMicros: Math.round(vsPeer.peer.mean),
            peerRatio: peer.ratio,
            peerMedianRatio: peer.medianRatio,
            peerGoal: PEER_GOAL,
          }),
        });
      }
    }
  } finally {
    child.send('exit');
  }
  const how = THREE_WAY ? 'router, baseline and peer alternating together' : 'each ratio from its two sides alternating';
  console.log(`\nServer CPU per request (${REQUESTS} requests per side and run, ${how}; reads stubbed; MongoDB: ${info.mongo})`);
  if (results.length) console.log('case   auth       router µs  baseline µs  baseline/router (median)  goal            router µs  peer µs  peer/router (median)  goal');
  for (const r of results) {
    const ok = (value, goal) => (value >= goal ? 'ok' : 'BELOW');
    const peer = r.peerRatio === undefined
      ? ''
      : `${String(r.routerMicrosVsPeer).padStart(9)}  ${String(r.peerMicros).padStart(7)}  ${`${r.peerRatio.toFixed(2)} (${r.peerMedianRatio.toFixed(2)})`.padStart(20)}  >= ${PEER_GOAL} ${ok(r.peerRatio, PEER_GOAL)}`;
    console.log(
      `${r.case.padEnd(6)} ${r.auth.padEnd(10)} ${String(r.routerMicros).padStart(9)}  ${String(r.baselineMicros).padStart(11)}  ${`${r.ratio.toFixed(2)} (${r.medianRatio.toFixed(2)})`.padStart(24)}  >= ${r.goal.toFixed(2)} ${ok(r.ratio, r.goal).padEnd(5)}  ${peer}`,
    );
  }
  if (results.length) {
    console.log('Ratios are cost ratios (other side / router): above 1, the router costs less. Means, medians in brackets.');
    if (!THREE_WAY) console.log('The router is measured twice: its first µs column beside the baseline, its second beside the peer (two runs).');
    console.log('JWT rows: both sides accept the same bearer token (HS256): the baseline verifies it with jsonwebtoken and runs findById on every request;');
    console.log('the router checks a token\'s signature once per token and reads its user through its user cache (auth.userCacheTtl).');
  }
  if (overheads.length) {
    console.log('\nRouter against router: the same request with one addition (a hook, a field rule, If-Match, a later build) vs without it');
    console.log('case               auth       with         with µs  without µs  with/without (median)  goal');
    for (const r of overheads) {
      const goal = r.goal === null ? 'informational' : `<= ${r.goal.toFixed(2)} ${r.ratio <= r.goal ? 'ok' : 'ABOVE'}`;
      console.log(
        `${r.case.padEnd(18)} ${r.auth.padEnd(10)} ${r.with.padEnd(11)}  ${String(r.withMicros).padStart(7)}  ${String(r.withoutMicros).padStart(10)}  ${`${r.ratio.toFixed(2)} (${r.medianRatio.toFixed(2)})`.padStart(21)}  ${goal}`,
      );
    }
    console.log('Ratios are cost ratios the other way round (with / without): below 1.10, the hook costs less than 10%.');
    console.log('hooked: one afterRead hook returning its doc; fieldAccess: a read rule on one field, denying anonymous callers;');
    console.log('ifMatch: a PATCH of a post with If-Match (reads and writes reach the database); before: the build in BENCH_CPU_BEFORE.');
    console.log('versioned: a PATCH of a post that keeps its history (reads and writes reach the database); drafts: the public list of a drafts collection.');
  }
  fs.writeFileSync(path.join(__dirname, 'results-cpu.json'), `${JSON.stringify({ at: new Date().toISOString(), requests: REQUESTS, threeWay: THREE_WAY, results, overheads }, null, 2)}\n`);
}

if (process.argv.includes('--serve')) {
  serve().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
