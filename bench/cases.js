'use strict';
// The benchmark cases. Each case says, for each side ('router' | 'baseline'), what to send:
//
//   {
//     name, goal,              // goal: minimum router/baseline req/s ratio, or null (informational)
//     stubbedGoal,             // optional: the goal instead under BENCH_STUB_READS=1 (only the Node side)
//     description,
//     request(ctx, side) -> { method, paths: [...], headers?, body? }   // paths are rotated per request
//     verify?(ctx)             // before measuring: both sides must give the same answer (throw if not)
//     cleanup?(ctx)            // after measuring (e.g. remove what a write case created)
//     minWarmup?               // seconds of warmup at least (BENCH_WARMUP may be shorter)
//     target?(side)            // which app a side hits: 'router' | 'baseline' | 'cached' (default: its own)
//     peer?                    // true: also measured on a third side, 'peer' (express-restify-mongoose,
//                              // bench/peer-app.js); request(ctx, 'peer') is its request, verify checks it too
//   }
//
// ctx: { seeded: { authorIds, postIds, publishedIds, seededAt }, connection,
//        call(side, { method, path, headers?, body? }) -> { status, body } }
//
// To add a case (say, an authenticated list), append an object here; run.js needs no change.

const assert = require('node:assert/strict');
const { randomBytes } = require('node:crypto');
const { POST_FIELDS } = require('./baseline-app');
const { PEER_LIST_PATH } = require('./peer-app');

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Canonical JSON: objects with sorted keys, so key order does not count as a difference. */
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  }
  return value;
}

function sameBody(actual, expected, what) {
  assert.deepStrictEqual(canonical(actual), canonical(expected), `${what}: the answers differ`);
}

/**
 * A peer (express-restify-mongoose) record as the router writes it: `_id` becomes `id`, first; the fields it
 * leaves out when unset read as null, as in every router record.
 */
function fromPeer(record) {
  const { _id, ...rest } = record;
  return { id: _id, ...Object.fromEntries(POST_FIELDS.map((key) => [key, null])), ...rest };
}

function expectStatus(response, status, what) {
  if (response.status !== status) {
    throw new Error(`${what}: expected HTTP ${status}, got ${response.status}: ${JSON.stringify(response.body).slice(0, 500)}`);
  }
}

/** Ids spread over the collection, so `get` does not hit one hot document. */
function sampleIds(ids, count) {
  const step = Math.max(1, Math.floor(ids.length / count));
  const out = [];
  for (let i = 0; i < ids.length && out.length < count; i += step) out.push(ids[i]);
  return out;
}

const listCase = {
  name: 'list',
  goal: 0.9,
  stubbedGoal: 0.95,
  description: 'published posts with views >= 100, newest published first, 20 per page, with total',
  peer: true,
  request(_ctx, side) {
    const path = {
      router: '/api/posts?where[status][eq]=published&where[views][gte]=100&sort=-publishedAt&perPage=20',
      baseline: '/api/posts?status=published&minViews=100&perPage=20',
      peer: PEER_LIST_PATH,
    }[side];
    return { method: 'GET', paths: [path] };
  },
  async verify(ctx) {
    const [router, baseline, peer] = await Promise.all(['router', 'baseline', 'peer'].map((side) => ctx.call(side, this.request(ctx, side))));
    expectStatus(router, 200, 'list (router)');
    expectStatus(baseline, 200, 'list (baseline)');
    expectStatus(peer, 200, 'list (peer)');
    const ids = (r) => r.body.data.map((d) => d.id);
    assert.equal(router.body.data.length, 20, 'list: the router should return a full page of 20');
    assert.deepStrictEqual(ids(router), ids(baseline), 'list: router and baseline return different ids');
    sameBody(router.body, baseline.body, 'list');
    // The peer answers a bare array of records and the total in X-Total-Count.
    assert.ok(Array.isArray(peer.body), 'list (peer): expected an array');
    const peerRows = peer.body.map(fromPeer);
    assert.deepStrictEqual(peerRows.map((d) => d.id), ids(router), 'list: router and peer return different ids');
    assert.equal(Number(peer.headers['x-total-count']), router.body.meta.total, 'list: router and peer report different totals');
    sameBody(peerRows, router.body.data, 'list (router vs peer records)');
  },
};

const getCase = {
  name: 'get',
  goal: 0.9,
  stubbedGoal: 0.95,
  description: 'one post by id (rotating over 200 ids)',
  peer: true,
  request(ctx) {
    // The same paths on all three sides.
    return { method: 'GET', paths: sampleIds(ctx.seeded.postIds, 200).map((id) => `/api/posts/${id}`) };
  },
  async verify(ctx) {
    for (const path of this.request(ctx).paths.slice(0, 5)) {
      const [router, baseline, peer] = await Promise.all(['router', 'baseline', 'peer'].map((side) => ctx.call(side, { method: 'GET', path })));
      expectStatus(router, 200, `get ${path} (router)`);
      expectStatus(baseline, 200, `get ${path} (baseline)`);
      expectStatus(peer, 200, `get ${path} (peer)`);
      sameBody(router.body, baseline.body, `get ${path}`);
      sameBody(fromPeer(peer.body), router.body, `get ${path} (router vs peer)`);
    }
  },
};

const createCase = {
  name: 'create',
  goal: 0.8,
  description: 'create one post (validated, its author checked to exist, inserted, returned)',
  body(ctx) {
    return {
      title: 'Benchmark post',
      body: 'Written by the benchmark. '.repeat(10).trim(),
      status: 'draft',
      views: 0,
      tags: ['bench', 'perf'],
      author: ctx.seeded.authorIds[0],
      featured: false,
    };
  },
  request(ctx) {
    return { method: 'POST', paths: ['/api/posts'], headers: JSON_HEADERS, body: JSON.stringify(this.body(ctx)) };
  },
  async verify(ctx) {
    const request = this.request(ctx);
    const [router, baseline] = await Promise.all(['router', 'baseline'].map((side) => ctx.call(side, { ...request, path: request.paths[0] })));
    expectStatus(router, 201, 'create (router)');
    expectStatus(baseline, 201, 'create (baseline)');
    const strip = ({ id: _id, createdAt: _c, updatedAt: _u, ...rest }) => rest;
    sameBody(strip(router.body), strip(baseline.body), 'create');
    // Both sides check the relation: an author id that names no author is refused, and nothing is written.
    const dangling = { ...request, path: request.paths[0], body: JSON.stringify({ ...this.body(ctx), author: '0'.repeat(24) }) };
    for (const side of ['router', 'baseline']) expectStatus(await ctx.call(side, dangling), 400, `create with an unknown author (${side})`);
    await this.cleanup(ctx);
  },
  async cleanup(ctx) {
    await ctx.connection.db.collection('posts').deleteMany({ createdAt: { $gte: ctx.seeded.seededAt } });
  },
};

/**
 * Authenticated vs anonymous: both sides hit the router ('router' with a JWT, 'baseline' without),
 * so the ratio is the cost of verifying the token and loading its user. Issue goal: <= 10% overhead.
 */
function authCase(name, description, path, goal) {
  return {
    name,
    goal,
    description,
    target: () => 'router',
    sideLabels: { router: 'JWT', baseline: 'anonymous' },
    request(ctx, side) {
      return { method: 'GET', paths: [path], headers: side === 'router' ? { authorization: `Bearer ${ctx.accessToken}` } : {} };
    },
    async verify(ctx) {
      const [withToken, anonymous] = await Promise.all(['router', 'baseline'].map((side) => ctx.call(side, { ...this.request(ctx, side), path }, this)));
      expectStatus(withToken, 200, `${name} (JWT)`);
      expectStatus(anonymous, 200, `${name} (anonymous)`);
      sameBody(withToken.body, anonymous.body, name);
    },
  };
}

const authListCase = authCase(
  'list: JWT/anon',
  'the list case sent with a Bearer JWT vs anonymously (both through the router)',
  listCase.request(null, 'router').paths[0],
  0.9,
);
const authSmallListCase = authCase(
  'authors: JWT/anon',
  'a cheap list (the few authors) with a JWT vs anonymously: auth cost against a fast query; informational',
  '/api/authors?perPage=20&count=false',
  null,
);

/**
 * Rate-limited vs unlimited: both sides hit the router app, the same list through a router with
 * `security.rateLimit` (at `prefix`) and through the unlimited one (at /api), so the ratio is the cost
 * of counting the request. The limit is never reached. Issue goal for the memory store: <= 5% overhead.
 */
function rateLimitCase(name, description, prefix, goal) {
  const unlimited = listCase.request(null, 'router').paths[0];
  const limited = unlimited.replace(/^\/api\//, `${prefix}/`);
  return {
    name,
    goal,
    description,
    target: () => 'router',
    sideLabels: { router: 'limited', baseline: 'unlimited' },
    request(_ctx, side) {
      return { method: 'GET', paths: [side === 'router' ? limited : unlimited] };
    },
    async verify(ctx) {
      const [withLimit, without] = await Promise.all(['router', 'baseline'].map((side) => ctx.call(side, { ...this.request(ctx, side), path: this.request(ctx, side).paths[0] }, this)));
      expectStatus(withLimit, 200, `${name} (limited)`);
      expectStatus(without, 200, `${name} (unlimited)`);
      sameBody(withLimit.body, without.body, name);
      const probe = await fetch(ctx.urlOf(this, 'router') + limited);
      if (!/^"api"; r=\d+;/.test(probe.headers.get('ratelimit') || '')) throw new Error(`${name}: the limited side sent no RateLimit header`);
    },
  };
}

/**
 * A custom endpoint against a plain Express route of the same host app answering the same constant:
 * the router's cost around a custom handler (dispatch, resolving the caller, req.context, the query).
 * Both sides hit the router app. No database work, so this is the Node-side overhead only.
 */
function customEndpointCase(name, path, goal) {
  return {
    name,
    goal,
    description: `GET ${path} (a constant) vs the host's own GET /host/ping route in the same app`,
    target: () => 'router',
    sideLabels: { router: 'endpoint', baseline: 'host route' },
    request(_ctx, side) {
      return { method: 'GET', paths: [side === 'router' ? path : '/host/ping'] };
    },
    async verify(ctx) {
      const [endpoint, host] = await Promise.all(['router', 'baseline'].map((side) => ctx.call(side, this.request(ctx, side), this)));
      expectStatus(endpoint, 200, `${name} (endpoint)`);
      expectStatus(host, 200, `${name} (host route)`);
      sameBody(endpoint.body, host.body, name);
    },
  };
}

const rateLimitMemoryCase = rateLimitCase(
  'list: limited/unlimited (memory)',
  'the list case through a router with security.rateLimit (memory store) vs without',
  '/limited',
  0.95,
);
const rateLimitMongoCase = rateLimitCase(
  'list: limited/unlimited (mongo)',
  'the list case through a router with security.rateLimit (Mongo store: one findOneAndUpdate per request) vs without; informational',
  '/limited-mongo',
  null,
);


/**
 * The response cache: the list case on the router with `cache` on posts, answered from the cache (HIT) vs
 * the same query shape with a never-repeated condition value, so every request misses and is stored (MISS).
 * Both sides hit the cached router. Goal: a HIT is at least 5x as fast as a MISS.
 */
const CACHED_LIST = '/api/posts?where[status][eq]=published&where[views][gte]=100&sort=-publishedAt&perPage=20&where[title][neq]=';
const cacheCase = {
  name: 'list: cache HIT/MISS',
  goal: 5,
  description: 'the list case with a response cache: every request a HIT vs every request a MISS (same router)',
  target: () => 'cached',
  sideLabels: { router: 'HIT', baseline: 'MISS' },
  minWarmup: 3,
  request(_ctx, side) {
    if (side === 'router') return { method: 'GET', paths: [`${CACHED_LIST}hit`] };
    // A fresh salt per run: a run never meets an entry stored by an earlier one.
    const salt = randomBytes(4).toString('hex');
    return { method: 'GET', paths: Array.from({ length: 20000 }, (_, i) => `${CACHED_LIST}miss-${salt}-${i}`) };
  },
  async verify(ctx) {
    const hitPath = this.request(ctx, 'router').paths[0];
    const first = await ctx.call('router', { path: hitPath }, this);
    const again = await ctx.call('router', { path: hitPath }, this);
    const miss = await ctx.call('baseline', { path: this.request(ctx, 'baseline').paths[0] }, this);
    for (const [response, what] of [[first, 'first'], [again, 'again'], [miss, 'miss']]) expectStatus(response, 200, `cache ${what}`);
    assert.equal(again.headers['x-cache'], 'HIT', 'cache: the second identical request should be a HIT');
    assert.equal(miss.headers['x-cache'], 'MISS', 'cache: a never-seen query should be a MISS');
    assert.equal(again.body.data.length, 20, 'cache: a full page of 20');
    sameBody(again.body, first.body, 'cache HIT vs first answer');
    sameBody(miss.body, first.body, 'cache MISS vs HIT (no post is titled like the salt)');
  },
};

const customObjectCase = customEndpointCase('endpoint: object', '/api/bench/ping-object', null);
const customFunctionCase = customEndpointCase('endpoint: function', '/api/bench/ping-function', null);

module.exports = [listCase, getCase, createCase, authListCase, authSmallListCase, rateLimitMemoryCase, rateLimitMongoCase, cacheCase, customObjectCase, customFunctionCase];
