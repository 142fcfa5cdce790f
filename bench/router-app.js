'use strict';
// Side (a) of the benchmark: content-router mounted at /api on a plain Express 5 app, on the
// shared mongoose connection. Reads and creates are open (no auth work), like the baseline; a
// `users` auth collection lets the auth case send the same list with a JWT.

const { randomBytes } = require('node:crypto');
const express = require('express');
const { contentRouter } = require('content-router');

const open = { read: () => true, create: () => true };

/** The collections the benchmark seeds, described for the router. */
function benchConfig(connection) {
  return {
    db: { connection },
    // A throwaway secret per run: the bench's tokens must not outlive it.
    auth: { jwtSecret: randomBytes(32).toString('hex'), jwtExpiry: '1h' },
    collections: [
      { slug: 'users', auth: true, fields: {} },
      {
        slug: 'authors',
        access: open,
        fields: {
          name: { type: 'text', required: true },
          email: { type: 'email' },
        },
      },
      {
        slug: 'posts',
        access: open,
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
 * Builds the router app and a bench user; resolves once indexes are built. Returns `{ app, api, accessToken }`.
 * Beside `/api`, the same collections are served rate-limited at `/limited` (memory store) and
 * `/limited-mongo` (Mongo store), on the same connection, for the rate-limit cases.
 */
async function createRouterApp(connection) {
  const logger = { error: console.error, warn: console.warn, info: () => undefined };
  const api = contentRouter({ ...benchConfig(connection), logger });
  const limited = contentRouter({ ...benchConfig(connection), logger, security: { rateLimit: { ...UNREACHED, store: 'memory' } } });
  const limitedMongo = contentRouter({ ...benchConfig(connection), logger, security: { rateLimit: { ...UNREACHED, store: 'mongo' } } });
  const app = express();
  app.disable('x-powered-by');
  app.use('/limited', limited);
  app.use('/limited-mongo', limitedMongo);
  app.use('/api', api);
  await Promise.all([limited.ready, limitedMongo.ready, api.ready]);
  const password = `Bench-${randomBytes(12).toString('hex')}`;
  const { accessToken } = await api.auth.register('bench@example.com', password, 'Bench');
  return { app, api, accessToken, close: () => Promise.all([api.close(), limited.close(), limitedMongo.close()]) };
}

module.exports = { createRouterApp, benchConfig };
