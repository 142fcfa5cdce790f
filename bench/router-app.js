'use strict';
// Side (a) of the benchmark: content-router mounted at /api on a plain Express 5 app, on the
// shared mongoose connection. Reads and creates are open (no auth work), like the baseline.

const express = require('express');
const { contentRouter } = require('..');

const open = { read: () => true, create: () => true };

/** The collections the benchmark seeds, described for the router. */
function benchConfig(connection) {
  return {
    db: { connection },
    collections: [
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

/** Builds the router app; resolves once the router's indexes are built. Returns `{ app, api }`. */
async function createRouterApp(connection) {
  const api = contentRouter(benchConfig(connection));
  const app = express();
  app.disable('x-powered-by');
  app.use('/api', api);
  await api.ready;
  return { app, api, close: () => api.close() };
}

module.exports = { createRouterApp, benchConfig };
