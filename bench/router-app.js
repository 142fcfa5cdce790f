'use strict';
// Side (a) of the benchmark: content-router mounted at /api on a plain Express 5 app, on the
// shared mongoose connection. Reads and creates are open (no auth work), like the baseline; a
// `users` auth collection lets the auth case send the same list with a JWT.

const { randomBytes } = require('node:crypto');
const express = require('express');
const { contentRouter } = require('content-router');

const open = { read: () => true, create: () => true };
/** What the custom-endpoint cases answer, from the router and from a plain host route alike. */
const PONG = { pong: true };

/** The collections the benchmark seeds, described for the router. */
function benchConfig(connection) {
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

/** Builds the router app and a bench user; resolves once indexes are built. Returns `{ app, api, accessToken }`. */
async function createRouterApp(connection) {
  const api = contentRouter({ ...benchConfig(connection), logger: { error: console.error, warn: console.warn, info: () => undefined } });
  const app = express();
  app.disable('x-powered-by');
  // A plain host route beside the router: the custom-endpoint cases' baseline, in the same app.
  app.get('/host/ping', (_req, res) => { res.json(PONG); });
  app.use('/api', api);
  await api.ready;
  const password = `Bench-${randomBytes(12).toString('hex')}`;
  const { accessToken } = await api.auth.register('bench@example.com', password, 'Bench');
  return { app, api, accessToken, close: () => api.close() };
}

module.exports = { createRouterApp, benchConfig };
