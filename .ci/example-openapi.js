'use strict';
// Writes the example app's OpenAPI document (example-app/app.js, every feature on) to the file its argument
// names, for .ci/run's lint: the app is built on a database of its own, unseeded, answers the one request
// on a free local port, and its database is dropped again. Uses the built package (dist/).
const { randomBytes } = require('node:crypto');
const { writeFileSync } = require('node:fs');
const mongoose = require('mongoose');
const { createExampleApp } = require('../example-app/app');

(async () => {
  // The example would otherwise warn that it makes up a secret; tokens are never issued here.
  process.env.JWT_SECRET ||= randomBytes(32).toString('hex');
  const connection = await mongoose.createConnection(process.env.MONGODB_URI, { dbName: `example_openapi_${Date.now()}` }).asPromise();
  const { app, api } = await createExampleApp({ connection, seed: false });
  const server = app.listen(0, '127.0.0.1');
  try {
    await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const url = `http://127.0.0.1:${server.address().port}/api/docs/openapi.json`;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    // Pretty-printed, so the lint's line numbers point somewhere readable.
    writeFileSync(process.argv[2], JSON.stringify(await res.json(), null, 2) + '\n');
  } finally {
    server.close();
    await api.close();
    await connection.dropDatabase();
    await connection.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
