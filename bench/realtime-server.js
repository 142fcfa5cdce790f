'use strict';
// The server side of bench/realtime.js, in its own process so its memory is measured alone. BENCH_SIDE:
//   router:   content-router with realtime on, one open collection, WebSocket upgrades attached;
//   baseline: the least a hand-written Express app could do for the same protocol: insert, then write the
//             same event to every connected SSE response / WebSocket (no access checks, no buffering limits).
// IPC from the parent: { memory } -> process.memoryUsage() after GC, { cpu }, { stats } -> { sse, ws }, { close }.

const http = require('node:http');
const express = require('express');
const { WebSocketServer } = require('ws');
const { contentRouter } = require('content-router');
const { connect } = require('../example-app/mongo');

async function routerSide(connection, app, server) {
  const open = { read: () => true, create: () => true };
  const api = contentRouter({
    db: { connection },
    // Every bench client comes from 127.0.0.1: lift the per-client connection cap (default 50) above them.
    realtime: { maxConnectionsPerClient: 100_000 },
    collections: [{ slug: 'events', sortable: [], access: open, fields: { name: { type: 'text', required: true } } }],
    logger: { error: console.error, warn: console.warn, info: () => undefined },
  });
  await api.ready;
  app.use('/api', api);
  api.attach(server);
  return { stats: () => api.realtime.stats(), close: () => api.close() };
}

async function baselineSide(connection, app, server) {
  const streams = new Set();
  const sockets = new Set();
  const events = connection.collection('events');
  let sequence = 0;
  app.get('/api/sse', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform' });
    res.write(': connected\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
  });
  app.post('/api/events', express.json(), async (req, res) => {
    const now = new Date();
    const doc = { name: String(req.body.name), createdAt: now, updatedAt: now };
    const { insertedId } = await events.insertOne(doc);
    const id = String(insertedId);
    const event = { id: String(++sequence), type: 'create', collection: 'events', docId: id, doc: { id, name: doc.name, createdAt: now.toISOString(), updatedAt: now.toISOString() }, timestamp: now.toISOString() };
    const json = JSON.stringify(event);
    const frame = Buffer.from(`event: create\nid: ${event.id}\ndata: ${json}\n\n`);
    for (const stream of streams) stream.write(frame);
    const message = Buffer.from(json);
    for (const socket of sockets) socket.send(message, { binary: false });
    res.status(201).json(event.doc);
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (req.url !== '/api/ws') return;
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', () => {
        sockets.add(ws);
        ws.send(JSON.stringify({ type: 'subscribed', collections: ['events'] }));
      });
      ws.on('close', () => sockets.delete(ws));
    });
  });
  return {
    stats: () => ({ sse: streams.size, ws: sockets.size }),
    close: () => {
      for (const stream of streams) stream.end();
      for (const socket of sockets) socket.terminate();
      wss.close();
    },
  };
}

async function main() {
  const connection = await connect(process.env.BENCH_MONGODB_URI, process.env.BENCH_DB_NAME);
  const app = express();
  const server = http.createServer(app);
  const side = await (process.env.BENCH_SIDE === 'baseline' ? baselineSide : routerSide)(connection, app, server);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

  process.on('message', async (message) => {
    let result = true;
    if (message.type === 'memory') {
      for (let i = 0; i < 3; i++) global.gc?.();
      result = process.memoryUsage();
    } else if (message.type === 'cpu') result = process.cpuUsage();
    else if (message.type === 'stats') result = side.stats();
    else if (message.type === 'close') {
      await side.close();
      server.closeAllConnections();
      server.close();
      await connection.close();
    }
    process.send({ id: message.id, result });
    if (message.type === 'close') process.disconnect();
  });
  process.send({ ready: true, port: server.address().port });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
