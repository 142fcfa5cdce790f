// A CommonJS host app as a user writes one, run by spec/packaging/pack-install.spec.ts from a temp
// project where content-router is installed from its packed tarball: mount, POST a post, list posts.
'use strict';
const { once } = require('node:events');
const { contentRouter, defineConfig } = require('content-router');
const express = require('express');
const mongoose = require('mongoose');

async function main() {
  const connection = mongoose.createConnection(process.env.MONGODB_URI, {
    dbName: process.env.HOST_DB_NAME,
    serverSelectionTimeoutMS: 10000,
  });
  await connection.asPromise();
  const api = contentRouter(
    defineConfig({ db: { connection }, collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }] }),
  );
  const app = express();
  // Writes need a user by default; a host's own auth sets req.user, and the router honours it.
  app.use((req, _res, next) => {
    req.user = { id: '65a1b2c3d4e5f60718293a4b' };
    next();
  });
  app.use('/api', api);
  await api.ready;
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const base = `http://127.0.0.1:${server.address().port}/api/posts`;
    const created = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hello from CommonJS' }),
    });
    const createBody = await created.json();
    const listed = await fetch(base);
    const listBody = await listed.json();
    console.log(
      JSON.stringify({
        moduleSystem: 'cjs',
        resolved: require.resolve('content-router'),
        typeofContentRouter: typeof contentRouter,
        typeofDefineConfig: typeof defineConfig,
        create: { status: created.status, body: createBody },
        list: { status: listed.status, body: listBody },
      }),
    );
  } finally {
    server.close();
    await api.close();
    await connection.dropDatabase();
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
