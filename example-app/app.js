'use strict';
// The example host app: a plain Express 5 app that mounts content-router at /api with a small
// blog schema (categories, authors, posts, articles with drafts and history, and a `site` global) and
// every feature turned on: auth, response cache, rate limiting, uploads, realtime, drafts and versions,
// custom endpoints, the API docs and MCP for agents, so that every README and docs/ example works against it. start.js
// runs it; tests can build it with createExampleApp() without listening or owning the process.
//
//   const { app, api } = await createExampleApp({ connection });   // or { uri }
//   const server = app.listen(3000);
//   api.attach(server);

const { randomBytes } = require('node:crypto');
const express = require('express');
const { contentRouter, defineConfig } = require('content-router');
const { dbNameInUri } = require('./mongo');

/** Database used when the example is given a URI that names none. */
const DEFAULT_DB_NAME = 'content_router_example';

/** The demo user the `X-Demo-User: alice` header stands for. */
const DEMO_USERS = {
  alice: { id: '000000000000000000000001', name: 'Alice', email: 'alice@example.com', role: 'admin' },
};

/**
 * Demo host authentication. A STAND-IN for the host's own auth (passport session, its own JWT
 * middleware, ...): whatever the host uses, once it has set `req.user` the content router honours
 * that user (wrapping the API with the host's own auth). Here a request carrying
 * `X-Demo-User: alice` is treated as signed in as Alice, an admin. Never do this in a real app:
 * anyone can send the header.
 */
function demoHostAuth(req, _res, next) {
  const name = String(req.get('x-demo-user') || '').trim().toLowerCase();
  const user = DEMO_USERS[name];
  if (user) req.user = { ...user };
  next();
}

/** Admins: the host's demo user, or a registered user an admin promoted. */
const isAdmin = ({ user }) => user?.role === 'admin';

/** Uploaded files: anyone downloads, signed-in users upload, the uploader or an admin deletes. */
const uploadAccess = {
  delete: ({ user }) => (user?.role === 'admin' ? true : user ? { uploadedBy: { eq: user.id } } : false),
};

/** Reference data: anyone reads, only admins write. */
const adminWrites = { read: () => true, create: isAdmin, update: isAdmin, delete: isAdmin };

/**
 * Posts: anyone reads; any signed-in user may write posts of their own (`owner` is theirs), admins
 * any post. The where answers are checked on the record before and after a write, so a user can
 * neither edit someone else's post nor hand their own to someone else.
 */
const ownPosts = ({ user }) => (user?.role === 'admin' ? true : user ? { owner: { eq: user.id } } : false);
const postAccess = { read: () => true, create: ownPosts, update: ownPosts, delete: ownPosts };

/**
 * Articles go through the editorial workflow (docs/versions.md): anyone reads what is published; any
 * signed-in user is an editor here, who writes drafts, publishes, schedules, makes preview links and reads
 * the history. A real app would keep those rules to its editors (`({ user }) => user?.role === 'editor'`).
 */
const signedIn = ({ user }) => Boolean(user);
const articleAccess = { read: () => true, create: signedIn, update: signedIn, delete: signedIn, publish: signedIn, readDrafts: signedIn, readVersions: signedIn };

/**
 * A development mailbox in place of real e-mail: the mails the router would send (reset and
 * verification tokens) are printed and kept, newest first, for GET /dev/mail (see createExampleApp).
 */
const MAILBOX = [];
function sendDemoMail(mail) {
  const token = /token:\n\n(\S+)/.exec(mail.text)?.[1] ?? /token=([^\s&]+)/.exec(mail.text)?.[1];
  MAILBOX.unshift({ to: mail.to, subject: mail.subject, token: token ? decodeURIComponent(token) : undefined, text: mail.text });
  MAILBOX.length = Math.min(MAILBOX.length, 50);
  console.log(`[example mail] to ${mail.to}: ${mail.subject}${token ? ` (token ${token})` : ''}`);
}

/**
 * The JWT secret: JWT_SECRET from the environment, as in production. Without it the demo makes a
 * random one per start (tokens then die with the process) and says so; never a literal in code.
 */
function jwtSecret() {
  if (process.env.JWT_SECRET) return process.env.JWT_SECRET;
  if (!jwtSecret.generated) {
    jwtSecret.generated = randomBytes(32).toString('hex');
    console.warn('JWT_SECRET is not set: using a random secret for this run (tokens end with the process).');
  }
  return jwtSecret.generated;
}

/** The content model of the example. */
function exampleConfig(db) {
  return defineConfig({
    core: { api: { prefix: '/api' } },
    db,
    // Users of the package's own auth: register, login, refresh, API keys (docs/auth.md). A getter, so
    // generating types from this config (which never reads the secret) does not warn about it.
    auth: {
      get jwtSecret() {
        return jwtSecret();
      },
    },
    email: { send: sendDemoMail },
    // Every route counts against its client's limit, 100 a minute per IP, and login, register and the
    // password-reset routes 10 per 15 minutes per IP and address (docs/rate-limit.md). Counted in this
    // process; a scaled-out host would use store: 'mongo'.
    security: { rateLimit: { windowMs: 60_000, max: 100, auth: { windowMs: 15 * 60_000, max: 10 } } },
    // Files in GridFS (docs/uploads.md): images and PDFs up to 10 MiB; posts point at them with `cover`.
    uploads: { maxFileSize: 10 * 1024 * 1024, allowedMimeTypes: ['image/*', 'application/pdf'], access: uploadAccess },
    // Create, update and delete events over /api/sse and /api/ws (docs/realtime.md); start.js attaches
    // the WebSocket endpoint to its server.
    realtime: true,
    // Who did what, to which record, when (docs/audit.md): every collection's changes, account events and
    // refused writes, kept 90 days; admins (X-Demo-User: alice) read it at /api/audit.
    audit: { collections: '*' },
    // Agents (Claude, Cursor, VS Code, ...) at /api/mcp over the Model Context Protocol (docs/mcp.md): the same
    // operations, credentials and access rules as REST; with `write`, those whose rules let them write get the
    // create, update, delete, saveDraft and publish tools too. Agents' writes show `origin: 'mcp'` in the audit log.
    mcp: { write: true },
    collections: [
      { slug: 'users', auth: true, sortable: ['email', 'name'], fields: {} },
      {
        slug: 'categories',
        access: adminWrites,
        // Reference data changes rarely: its lists and records answer from memory for 5 minutes at most
        // (this router's writes drop them at once; docs/cache.md).
        cache: { ttl: 300 },
        sortable: ['name'],
        fields: {
          name: { type: 'text', required: true, unique: true },
          slug: { type: 'text' },
        },
      },
      {
        slug: 'authors',
        access: adminWrites,
        cache: { ttl: 300 },
        sortable: ['name'],
        fields: {
          name: { type: 'text', required: true },
          email: { type: 'email', unique: true },
          bio: { type: 'textarea' },
        },
      },
      {
        slug: 'posts',
        softDelete: true,
        access: postAccess,
        // Posts change more often: a minute at most.
        cache: { ttl: 60 },
        search: ['title', 'body'],
        // The sorts clients may ask for, each walked through its own index (docs/indexes.md), and one
        // compound index for the published list: filter=status:published&sort=-publishedAt.
        sortable: ['publishedAt', 'title', 'views', 'updatedAt'],
        indexes: [{ fields: { status: 1, publishedAt: -1 } }],
        fields: {
          title: { type: 'text', required: true },
          body: { type: 'textarea' },
          status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
          views: { type: 'number', default: 0 },
          tags: { type: 'array', of: 'text' },
          publishedAt: { type: 'date' },
          author: { type: 'relationship', relationTo: 'authors' },
          categories: { type: 'relationship', relationTo: 'categories', hasMany: true },
          featured: { type: 'boolean' },
          owner: { type: 'relationship', relationTo: 'users' },
          cover: { type: 'upload' },
          // Free-form data for the front end (any JSON).
          meta: { type: 'json' },
        },
      },
      {
        // Drafts, history, publishing, scheduling and preview links (docs/versions.md): the public sees
        // published articles only; editors work on a draft beside each, and its last 20 versions are kept.
        slug: 'articles',
        access: articleAccess,
        versions: { drafts: true, max: 20 },
        fields: {
          title: { type: 'text', required: true },
          slug: { type: 'text', unique: true },
          body: { type: 'textarea' },
        },
      },
    ],
    // Custom endpoints (docs/endpoints.md): a function given a router, and an object with a typed body.
    endpoints: [
      (router) => {
        // Beats the generated GET /posts/:id (literal segments win); req.context reads as the caller.
        router.get('/posts/published', async (req, res) => {
          const result = await req.context.find('posts', { where: { status: 'published' }, sort: '-publishedAt', limit: 5 });
          res.json({ docs: result.docs });
        });
      },
      {
        path: '/contact',
        method: 'post',
        schema: {
          name: 'ContactForm',
          body: {
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 100 },
              email: { type: 'string', maxLength: 254 },
              message: { type: 'string', minLength: 1, maxLength: 5000 },
            },
            required: ['name', 'message'],
          },
          response: { type: 'object', properties: { received: { type: 'boolean' } }, required: ['received'] },
        },
        detail: { summary: 'Send a message to the site owners', tags: ['contact'] },
        // A real app would store or mail the message; the demo only says it arrived.
        handler: () => ({ received: true }),
      },
      {
        // A multipart form with a file (held in memory, so bounded by maxSize).
        path: '/applications',
        method: 'post',
        schema: {
          name: 'Application',
          body: {
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 100 },
              age: { type: 'number', integer: true, minimum: 0, maximum: 150 },
              subscribe: { type: 'boolean' },
              attachment: { type: 'file', maxSize: 2 * 1024 * 1024 },
            },
            required: ['name'],
          },
        },
        detail: { summary: 'Apply, with an optional attachment (multipart/form-data)', tags: ['contact'] },
        // The demo keeps nothing: it says what arrived (the file's bytes are in attachment.buffer).
        handler: ({ body }) => ({
          received: true,
          name: body.name,
          attachment: body.attachment
            ? { originalName: body.attachment.originalName, mimeType: body.attachment.mimeType, size: body.attachment.size }
            : null,
        }),
      },
    ],
    globals: [
      {
        slug: 'site',
        access: { read: () => true, update: isAdmin },
        fields: {
          title: { type: 'text' },
          tagline: { type: 'text' },
          maintenance: { type: 'boolean', default: false },
        },
      },
    ],
  });
}

// --- demo content -------------------------------------------------------------------------------

const CATEGORIES = [
  { name: 'News', slug: 'news' },
  { name: 'Tutorials', slug: 'tutorials' },
  { name: 'Releases', slug: 'releases' },
  { name: 'Opinion', slug: 'opinion' },
];

const AUTHORS = [
  { name: 'Ada Lovelace', email: 'ada@example.com', bio: 'Writes about engines, analytical and otherwise.' },
  { name: 'Grace Hopper', email: 'grace@example.com', bio: 'Compilers, COBOL and the occasional moth.' },
  { name: 'Alan Turing', email: 'alan@example.com', bio: 'Computability, morphogenesis and long-distance running.' },
];

const TOPICS = [
  'Getting started with content-router',
  'Filtering lists with where brackets',
  'Keyset pagination explained',
  'Soft delete and restore',
  'Relationships and depth',
  'Mounting beside your own routes',
  'Access rules as where constraints',
  'Globals for site settings',
  'Batch create, all or nothing',
  'Problem details for every error',
  'Sorting with a stable tie-breaker',
  'Three query dialects, one endpoint',
  'Search across text fields',
];
const TAGS = ['express', 'mongodb', 'mongoose', 'rest', 'cms', 'typescript', 'howto', 'release'];

/** ~25 posts: most published (spread over the last months), a few drafts, some featured. */
function demoPosts(authorIds, categoryIds, count = 25) {
  const now = Date.now();
  const day = 24 * 60 * 60 * 1000;
  const posts = [];
  for (let i = 0; i < count; i += 1) {
    const published = i % 6 !== 5; // every sixth post is a draft
    const topic = TOPICS[i % TOPICS.length];
    const post = {
      title: i < TOPICS.length ? topic : `${topic} (part ${Math.floor(i / TOPICS.length) + 1})`,
      body: `${topic}. This is demo post #${i + 1}, seeded by the example app so that the API has something to list.`,
      status: published ? 'published' : 'draft',
      views: published ? (i * 137) % 1000 : 0,
      tags: [TAGS[i % TAGS.length], TAGS[(i * 3 + 1) % TAGS.length]].filter((t, k, all) => all.indexOf(t) === k),
      author: authorIds[i % authorIds.length],
      categories: i % 4 === 0 ? [categoryIds[i % categoryIds.length], categoryIds[(i + 1) % categoryIds.length]] : [categoryIds[i % categoryIds.length]],
      featured: i % 5 === 0,
    };
    if (published) post.publishedAt = new Date(now - (count - i) * 3 * day).toISOString();
    posts.push(post);
  }
  return posts;
}

/** Seeds demo content through the local API when the posts collection is empty (deleted ones count). */
async function seedIfEmpty(api) {
  const existing = await api.local.find('posts', { perPage: 1, includeDeleted: true });
  if (existing.total > 0) return false;
  const categories = [];
  for (const category of CATEGORIES) {
    // A rerun after a half-finished seed may find the category already there (unique name).
    const found = await api.local.find('categories', { where: { name: { eq: category.name } }, perPage: 1 });
    categories.push(found.docs[0] || (await api.local.create('categories', category)));
  }
  const authors = [];
  for (const author of AUTHORS) {
    const found = await api.local.find('authors', { where: { email: { eq: author.email } }, perPage: 1 });
    authors.push(found.docs[0] || (await api.local.create('authors', author)));
  }
  await api.local.createMany(
    'posts',
    demoPosts(
      authors.map((a) => a.id),
      categories.map((c) => c.id),
    ),
  );
  await api.local.updateGlobal('site', {
    title: 'content-router demo',
    tagline: 'A headless CMS API mounted inside a plain Express app',
    maintenance: false,
  });
  return true;
}

// --- the app ------------------------------------------------------------------------------------

/**
 * Builds the example app. Pass the host's mongoose `connection` (the router uses it and leaves it
 * open on close), or a `uri` (the router opens and closes its own connection; the database is
 * `dbName`, else the one named in the URI, else `content_router_example`).
 * Resolves once indexes are built and (unless `seed: false`) demo content exists.
 * Returns `{ app, api, seeded }`.
 */
async function createExampleApp({ connection, uri, dbName, seed = true, hookExamples = false } = {}) {
  let db;
  if (connection) db = { connection };
  else if (uri) db = { uri, options: { dbName: dbName || dbNameInUri(uri) || DEFAULT_DB_NAME, serverSelectionTimeoutMS: 8000 } };
  else throw new TypeError('createExampleApp: pass { connection } (a mongoose connection) or { uri }');

  // `hookExamples: true` (HOOK_EXAMPLES=1 npm start): the worked examples of docs/hooks.md, taken from the page.
  const config = hookExamples ? require('./hook-examples').loadHookExamples()(exampleConfig(db)) : exampleConfig(db);
  const api = contentRouter(config);
  const app = express();
  app.disable('x-powered-by');

  // The host's own middleware runs first; the router then sees req.user.
  app.use(demoHostAuth);
  app.use('/api', api);
  // Development only: the newest mail the router sent to an address, so the README's curl session can
  // pick up the reset and verification tokens. A real app sends mail and has no such route.
  if (process.env.NODE_ENV !== 'production') {
    app.get('/dev/mail', (req, res) => {
      const mail = MAILBOX.find((m) => m.to === String(req.query.to || '').toLowerCase());
      if (!mail) return res.status(404).json({ error: 'no mail to this address yet' });
      res.json(mail);
    });
  }
  app.get('/', (req, res) => {
    const base = `${req.protocol}://${req.get('host')}/api`;
    res.json({
      name: 'content-router example',
      endpoints: {
        posts: `${base}/posts`,
        articles: `${base}/articles`,
        publishedPosts: `${base}/posts?where[status][eq]=published&sort=-publishedAt`,
        authors: `${base}/authors`,
        categories: `${base}/categories`,
        site: `${base}/globals/site`,
        docs: `${base}/docs/`,
        schema: `${base}/schema`,
        mcp: `POST ${base}/mcp (Model Context Protocol for agents, Streamable HTTP; README "Agents (MCP)")`,
        events: `${base}/sse?collections=posts`,
        upload: `POST ${base}/upload (multipart, field "file")`,
      },
      writes: 'send header "X-Demo-User: alice" to act as the demo admin, or register at POST /api/users/register and send the access token as Bearer (a registered user writes posts of their own: set "owner" to your user id)',
      mail: 'mails the API would send (reset and verification tokens) are printed and served at /dev/mail?to=<address>',
    });
  });

  try {
    await api.ready;
    const seeded = seed ? await seedIfEmpty(api) : false;
    return { app, api, seeded };
  } catch (error) {
    await api.close().catch(() => undefined);
    throw error;
  }
}

module.exports = { createExampleApp, exampleConfig, demoHostAuth, demoPosts, seedIfEmpty, DEMO_USERS, DEFAULT_DB_NAME };
