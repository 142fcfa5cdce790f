'use strict';
// Side (a) of the benchmark: content-router mounted at /api on a plain Express 5 app, on the
// shared mongoose connection. Reads and creates are open (no auth work), like the baseline; a
// `users` auth collection lets the auth case send the same list with a JWT.

const { randomBytes } = require('node:crypto');
const express = require('express');
const { contentRouter } = require('content-router');

const open = { read: () => true, create: () => true };
/**
 * The posts may also be updated by anyone: bench/cpu-per-request.js's patch-if-match case PATCHes them.
 * BENCH_READ_RULE=where: their read rule answers a where instead (posts of the two statuses every seeded post has,
 * or the caller's own), which every seeded post meets: for measuring what a constraint costs a read.
 */
const openPosts = { ...open, update: () => true };
if (process.env.BENCH_READ_RULE === 'where') {
  const visible = { status: { in: ['draft', 'published'] } };
  openPosts.read = ({ user }) => (user ? { or: [visible, { author: { eq: user.id } }] } : visible);
}
/** What the custom-endpoint cases answer, from the router and from a plain host route alike. */
const PONG = { pong: true };

/** The collections the benchmark seeds, described for the router; `cache` turns on the posts' response cache. */
function benchConfig(connection, { cache = false } = {}) {
  return {
    db: { connection },
    // A throwaway secret per run: the bench's tokens must not outlive it.
    auth: { jwtSecret: randomBytes(32).toString('hex'), jwtExpiry: '1h' },
    // Custom endpoints answering a constant, for the custom-endpoint cases (bench/cases.js).
    endpoints: [
      (router) => router.get('/bench/ping-function', (_req, res) => { res.json(PONG); }),
      { path: '/bench/ping-object', method: 'get', handler: () => PONG },
    ],
    collections: [
      { slug: 'users', auth: true, sortable: [], fields: {} },
      {
        slug: 'authors',
        sortable: ['name'],
        access: open,
        fields: {
          name: { type: 'text', required: true },
          email: { type: 'email' },
        },
      },
      {
        slug: 'posts',
        // What the list case sorts on, indexed as a real deployment would declare it.
        sortable: ['publishedAt', 'views', 'title'],
        access: openPosts,
        ...(cache ? { cache: { ttl: 600 } } : {}),
        // BENCH_READ_HOOK=1: one trivial afterRead hook on the posts of every router app (list-before and
        // get-before compare two builds' hooked reads).
        ...(process.env.BENCH_READ_HOOK === '1' ? { hooks: { afterRead: [({ doc }) => doc] } } : {}),
        fields: {
          title: { type: 'text', required: true },
          body: { type: 'textarea' },
          status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
          views: { type: 'number', default: 0 },
          tags: { type: 'array', of: 'text' },
          publishedAt: { type: 'date' },
          author: { type: 'relationship', relationTo: 'authors' },
          featured: { type: 'boolean' },
        },
      },
    ],
  };
}

/** A limit no benchmark run reaches: the rate-limit cases measure the cost of counting, never a 429. */
const UNREACHED = { windowMs: 60_000, max: 1_000_000_000 };

/**
 * Builds the router app and a bench user; resolves once indexes are built (and, with `cache`, the change
 * feed is open). Returns `{ app, api, accessToken }`. Beside `/api`, the uncached app also serves the same
 * collections rate-limited at `/limited` (memory store) and `/limited-mongo` (Mongo store), on the same
 * connection, for the rate-limit cases.
 */
async function createRouterApp(connection, options = {}) {
  const logger = { error: console.error, warn: console.warn, info: () => undefined };
  const config = benchConfig(connection, options);
  const api = contentRouter({ ...config, logger });
  const limiters = options.cache
    ? []
    : [
        ['/limited', contentRouter({ ...benchConfig(connection), logger, security: { rateLimit: { ...UNREACHED, store: 'memory' } } })],
        ['/limited-mongo', contentRouter({ ...benchConfig(connection), logger, security: { rateLimit: { ...UNREACHED, store: 'mongo' } } })],
      ];
  const app = express();
  app.disable('x-powered-by');
  for (const [prefix, limited] of limiters) app.use(prefix, limited);
  // A plain host route beside the router: the custom-endpoint cases' baseline, in the same app.
  app.get('/host/ping', (_req, res) => { res.json(PONG); });
  app.use('/api', api);
  await Promise.all([...limiters.map(([, limited]) => limited.ready), api.ready]);
  const password = `Bench-${randomBytes(12).toString('hex')}`;
  // One bench user per database: a second app (the cached one) logs in with its own address.
  const { accessToken } = await api.auth.register(options.cache ? 'bench-cached@example.com' : 'bench@example.com', password, 'Bench');
  return { app, api, accessToken, jwtSecret: config.auth.jwtSecret, close: () => Promise.all([api.close(), ...limiters.map(([, limited]) => limited.close())]) };
}

/** A field no seeded post has: the field-access variant guards it with a read rule, the others leave it open. */
const EDITOR_NOTE = { type: 'textarea' };
/** The field-access variant's rule: signed-in callers may read the note, anonymous ones may not. */
const signedIn = ({ user }) => user !== null;

/**
 * The router-against-router variants of bench/cpu-per-request.js: the bench config with one thing added to
 * `posts` each. `plain` adds only `editorNote`; `hooked` adds a trivial `afterRead` hook (it counts its calls,
 * so the bench can check it ran on every record); `fieldAccess` gives `editorNote` a read rule that denies
 * anonymous callers; `versioned` keeps each post's history, `drafts` also a working copy. No seeded post has an
 * `editorNote`, so all of them answer alike, byte for byte.
 */
const VARIANTS = {
  plain: (posts) => posts,
  hooked: (posts, counter) => ({
    ...posts,
    hooks: {
      afterRead: [
        function trivialAfterRead({ doc }) {
          counter.calls += 1;
          return doc;
        },
      ],
    },
  }),
  fieldAccess: (posts) => ({ ...posts, fields: { ...posts.fields, editorNote: { ...EDITOR_NOTE, access: { read: signedIn } } } }),
  // Each record's history (every write adds a version), and with drafts a working copy beside it: the
  // public list reads the published records, which stay in `posts` itself.
  versioned: (posts) => ({ ...posts, versions: true }),
  drafts: (posts) => ({ ...posts, versions: { drafts: true } }),
};

/**
 * One router app per variant named in `names` (of VARIANTS), each on an Express app of its own built like
 * the others, on the same connection and users as `base` (the app of createRouterApp): its JWT is valid on
 * each. Returns `{ apps: { name: app }, afterReadCalls: { calls }, close }`.
 */
async function createVariantApps(connection, base, names) {
  const logger = { error: console.error, warn: console.warn, info: () => undefined };
  const counter = { calls: 0 };
  const apps = {};
  const routers = [];
  for (const name of names) {
    const config = benchConfig(connection);
    config.auth.jwtSecret = base.jwtSecret;
    config.collections = config.collections.map((c) =>
      c.slug === 'posts' ? VARIANTS[name]({ ...c, fields: { ...c.fields, editorNote: EDITOR_NOTE } }, counter) : c,
    );
    const api = contentRouter({ ...config, logger });
    const app = express();
    app.disable('x-powered-by');
    app.use('/api', api);
    apps[name] = app;
    routers.push(api);
  }
  await Promise.all(routers.map((api) => api.ready));
  return { apps, afterReadCalls: counter, close: () => Promise.all(routers.map((api) => api.close())) };
}

module.exports = { createRouterApp, createVariantApps, benchConfig };
