'use strict';
// The server side of bench/realtime.js, in its own process so its memory is measured alone: content-router
// with realtime on, one open collection, listening on 127.0.0.1 with WebSocket upgrades attached.
// Talks to the parent over IPC: { memory } -> process.memoryUsage() after a GC, { stats } -> api.realtime.stats().

const http = require('node:http');
const express = require('express');
const { contentRouter } = require('content-router');
const { connect } = require('../example-app/mongo');

async function main() {
  const connection = await connect(process.env.BENCH_MONGODB_URI, process.env.BENCH_DB_NAME);
  const open = { read: () => true, create: () => true };
  const api = contentRouter({
    db: { connection },
    realtime: true,
    collections: [{ slug: 'events', access: open, fields: { name: { type: 'text', required: true } } }],
    logger: { error: console.error, warn: console.warn, info: () => undefined },
  });
  await api.ready;
  const app = express();
  app.use('/api', api);
  const server = http.createServer(app);
  api.attach(server);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

  process.on('message', async (message) => {
    if (message.type === 'memory') {
      for (let i = 0; i < 3; i++) global.gc?.();
      process.send({ id: message.id, result: process.memoryUsage() });
    } else if (message.type === 'stats') {
      process.send({ id: message.id, result: api.realtime.stats() });
    } else if (message.type === 'close') {
      await api.close();
      server.closeAllConnections();
      server.close();
      await connection.close();
      process.send({ id: message.id, result: true });
      process.disconnect();
    }
  });
  process.send({ ready: true, port: server.address().port });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
