'use strict';
// Runs the example app: `npm start` (builds the package first), or `node example-app/start.js`.
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true npm start
//   PORT=4000 npm start
//   HOOK_EXAMPLES=1 npm start    (with the worked examples of docs/hooks.md)
//
// Without MONGODB_URI it starts a throwaway MongoDB with mongodb-memory-server (which downloads
// mongod the first time). The host owns the mongoose connection here and hands it to the router.

const { MongoStartError, startMongo, connect, dbNameInUri, redact } = require('./mongo');
const { createExampleApp, DEFAULT_DB_NAME } = require('./app');

async function main() {
  let mongo;
  let connection;
  try {
    mongo = await startMongo();
    connection = await connect(mongo.uri, dbNameInUri(mongo.uri) || DEFAULT_DB_NAME);
  } catch (error) {
    if (mongo) await mongo.stop().catch(() => undefined);
    console.error(error instanceof MongoStartError ? error.message : `Could not start MongoDB: ${error && error.message}`);
    process.exit(1);
  }

  const { app, api, seeded } = await createExampleApp({ connection, hookExamples: process.env.HOOK_EXAMPLES === '1' });
  const port = Number(process.env.PORT || 3000);
  const server = app.listen(port);
  await new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  api.attach(server);

  const base = `http://localhost:${server.address().port}`;
  console.log(`MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : 'mongodb-memory-server (in-memory, discarded on exit)'}, database "${connection.name}"${seeded ? ' (seeded demo content)' : ''}`);
  console.log(`content-router example listening on ${base}`);
  console.log(`  ${base}/api/posts`);
  console.log(`  ${base}/api/posts?where[status][eq]=published&sort=-publishedAt&perPage=5`);
  console.log(`  ${base}/api/authors`);
  console.log(`  ${base}/api/categories`);
  console.log(`  ${base}/api/globals/site`);
  console.log(`Custom endpoints (types in example-app/generated/content-types.ts):`);
  console.log(`  ${base}/api/posts/published`);
  console.log(`  curl -X POST ${base}/api/contact -H 'Content-Type: application/json' -d '{"name":"Ann","message":"Hello"}'`);
  console.log(`Writes need a user: add the header "X-Demo-User: alice" (a stand-in for the host's own auth),`);
  console.log(`  or register: curl -X POST ${base}/api/users/register -H 'Content-Type: application/json' -d '{"email":"you@example.com","password":"a long passphrase"}'`);
  console.log(`Drafts, publishing, scheduling, preview links and history: ${base}/api/articles (a walk-through in docs/versions.md)`);
  console.log(`API docs: ${base}/api/docs/ (OpenAPI document at ${base}/api/docs/openapi.json); what a caller may see and do: ${base}/api/schema`);
  console.log(`Agents (MCP): ${base}/api/mcp, Streamable HTTP; send an API key as X-API-Key (README "Agents (MCP)" shows the agent configs)`);
  console.log(`Realtime: curl -N '${base}/api/sse?collections=posts' (or a WebSocket at ws://localhost:${server.address().port}/api/ws)`);
  console.log(`Uploads: curl -H 'X-Demo-User: alice' -F file=@photo.jpg ${base}/api/upload (images and PDFs, 10 MiB at most)`);
  console.log(`Rate limit: 100 requests a minute per client; login, register and password resets 10 per 15 minutes per address`);

  let stopping = false;
  const shutdown = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    // A second signal, or a shutdown that hangs, ends the process anyway.
    const force = setTimeout(() => process.exit(1), 10000);
    force.unref();
    try {
      await api.close();
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeIdleConnections?.();
      });
      await connection.close();
      await mongo.stop();
    } catch (error) {
      console.error('error during shutdown:', error);
      process.exitCode = 1;
    }
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error) => {
  console.error('example app failed to start:', error);
  process.exit(1);
});
