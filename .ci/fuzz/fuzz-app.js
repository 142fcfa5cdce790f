'use strict';
// A host app with every feature on, served on a free port for schemathesis to fuzz from its OpenAPI
// document (.ci/run). Prints "READY <port>"; stops on SIGTERM. Uses the built package (dist/).
const express = require('express');
const mongoose = require('mongoose');
const { contentRouter } = require('../../dist');
(async () => {
  const connection = mongoose.createConnection(process.env.MONGODB_URI, { dbName: 'fuzz_' + Date.now() });
  await connection.asPromise();
  const api = contentRouter({
    db: { connection },
    auth: { jwtSecret: 'x'.repeat(40), passwordHash: { cost: 1024 } },
    uploads: {},
    realtime: true,
    // Nothing listens there: deliveries fail and wait for their retries; the fuzzing is of the delivery log's routes.
    webhooks: { endpoints: [{ url: 'http://127.0.0.1:9/hook', secret: 'whsec_' + Buffer.alloc(24, 7).toString('base64'), events: ['*'] }] },
    security: { rateLimit: { windowMs: 60000, max: 1000000, auth: { max: 1000000, maxPerClient: 1000000 } } },
    endpoints: [{ path: '/contact', method: 'post', schema: { name: 'ContactForm', body: { properties: { name: { type: 'string' } }, required: ['name'] } }, handler: async ({ body }) => ({ ok: true, name: body.name }) }],
    collections: [
      { slug: 'users', auth: true, fields: { bio: { type: 'text' } } },
      { slug: 'authors', fields: { name: { type: 'text', required: true } }, access: { read: () => true, create: () => true, update: () => true, delete: () => true } },
      {
        slug: 'posts', softDelete: true, cache: { ttl: 30 },
        access: { read: () => true, create: () => true, update: () => true, delete: () => true },
        fields: {
          title: { type: 'text', required: true, maxLength: 200 }, views: { type: 'number' }, published: { type: 'boolean' },
          status: { type: 'select', options: ['draft', 'published'] }, tags: { type: 'array', of: 'text' }, publishedAt: { type: 'date' },
          author: { type: 'relationship', relationTo: 'authors' }, meta: { type: 'json' }, cover: { type: 'upload' },
        },
      },
    ],
    globals: [{ slug: 'site', fields: { title: { type: 'text' } }, access: { read: () => true, update: () => true } }],
  });
  await api.ready;
  const app = express();
  app.use('/api', api);
  const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => console.log(`READY ${server.address().port}`));
  api.attach(server);
  process.on('SIGTERM', async () => {
    server.close();
    await api.close();
    await connection.close();
    process.exit(0);
  });
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
