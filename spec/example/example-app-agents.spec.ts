// The example app as an agent meets it (README "Agents (MCP)"): the MCP SDK's own client over Streamable HTTP
// at /api/mcp, with each credential the README names (none, an API key made as the README makes it, an access
// token, the host's own user), sees the tools its caller may use, and reads and writes records shaped as REST
// shapes them.
import type { Server } from 'node:http';
import request from 'supertest';
import type { Connection } from 'mongoose';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';
import { baseUrl, closeServer, listen } from '../realtime/realtime-clients';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example app is plain CommonJS JavaScript, without typings
const { createExampleApp } = require('../../example-app/app.js') as {
  createExampleApp(args: { connection: Connection }): Promise<{
    app: import('express').Express;
    api: { close(): Promise<void> };
    seeded: boolean;
  }>;
};

const READ_TOOLS = ['count', 'describe', 'find', 'get'];
const WRITE_TOOLS = ['create', 'delete', 'publish', 'saveDraft', 'update'];

let connection: Connection;
let example: Awaited<ReturnType<typeof createExampleApp>>;
let server: Server;
const agents: Client[] = [];
const previousSecret = process.env.JWT_SECRET;

beforeAll(async () => {
  process.env.JWT_SECRET = 'example-app-agents-secret-0123456789abcdef';
  connection = await openTestConnection();
  example = await createExampleApp({ connection });
  server = await listen(example.app);
});
afterAll(async () => {
  for (const agent of agents) await agent.close();
  await closeServer(server);
  await example.api.close();
  await closeTestConnection(connection);
  process.env.JWT_SECRET = previousSecret;
});

/** An agent connected to the example's /api/mcp, sending `headers` on every request as a desktop agent's config does. */
async function connectAgent(headers: Record<string, string> = {}): Promise<Client> {
  const agent = new Client({ name: 'example-app-agents-spec', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl(server)}/api/mcp`), { requestInit: { headers } }));
  agents.push(agent);
  return agent;
}

async function toolNames(agent: Client): Promise<string[]> {
  return (await agent.listTools()).tools.map((tool) => tool.name).sort();
}

/** A tool's structured answer, failing the test with the tool's own message when it answered an error. */
async function call(agent: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await agent.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} answered a tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

/** Registers a user and makes an API key for it, as the README's "Agents (MCP)" section does with curl. */
async function userWithKey(email: string, scopes: string[]): Promise<{ accessToken: string; userId: string; key: string }> {
  const registered = await request(example.app).post('/api/users/register').send({ email, password: 'a long passphrase', name: 'Agent owner' });
  expect(registered.status).toBe(201);
  const made = await request(example.app)
    .post('/api/users/api-keys')
    .set('Authorization', `Bearer ${registered.body.accessToken}`)
    .send({ name: 'my agent', scopes });
  expect(made.status).toBe(201);
  return { accessToken: registered.body.accessToken, userId: registered.body.user.id, key: made.body.apiKey.key };
}

it('offers an anonymous agent the read tools, and its find answers the records REST lists', async () => {
  const agent = await connectAgent();
  expect(await toolNames(agent)).toEqual(READ_TOOLS);
  const found = await call(agent, 'find', { collection: 'posts', where: { status: { eq: 'published' } }, sort: '-publishedAt', limit: 3 });
  // The cursor envelope, as REST answers a list asked with `cursor`: agents page with its nextCursor.
  const rest = await request(example.app).get('/api/posts?where[status][eq]=published&sort=-publishedAt&limit=3&cursor=').expect(200);
  expect(found).toEqual(rest.body);
  expect(rest.body.data).toHaveLength(3);
  const next = await call(agent, 'find', { collection: 'posts', where: { status: { eq: 'published' } }, sort: '-publishedAt', limit: 3, cursor: rest.body.meta.nextCursor });
  const restNext = await request(example.app).get(`/api/posts?where[status][eq]=published&sort=-publishedAt&limit=3&cursor=${encodeURIComponent(rest.body.meta.nextCursor)}`).expect(200);
  expect(next).toEqual(restNext.body);
  expect(await call(agent, 'count', { collection: 'authors' })).toEqual({ total: 3 });
});

it("describes to an agent what its caller may see and do: anonymous reads the site's content, writes nothing", async () => {
  const agent = await connectAgent();
  const schema = (await call(agent, 'describe', {})) as { collections: Array<{ slug: string; access: Record<string, unknown> }> };
  const posts = schema.collections.find((collection) => collection.slug === 'posts');
  expect(posts?.access).toMatchObject({ read: true, create: false, update: false, delete: false });
  expect(schema.collections.map((collection) => collection.slug)).not.toContain('users');
});

/** What `describe` says the agent's caller may do on each collection, by slug. */
async function rightsOf(agent: Client): Promise<Record<string, Record<string, unknown>>> {
  const schema = (await call(agent, 'describe', {})) as { collections: Array<{ slug: string; access: Record<string, unknown> }> };
  return Object.fromEntries(schema.collections.map((collection) => [collection.slug, collection.access]));
}

it("acts as the caller of each credential the README names: an API key (with its scopes), an access token, the host's own user", async () => {
  const reader = await userWithKey('reader-agent@example.com', ['read']);
  const asReadKey = await connectAgent({ 'X-API-Key': reader.key });
  // A read-scoped key: its user may write their own posts, the key may not.
  expect(await toolNames(asReadKey)).toEqual(READ_TOOLS);
  expect((await rightsOf(asReadKey)).posts).toMatchObject({ read: true, create: false, update: false });
  // The user's access token: their own posts ('some': the records whose owner they are), articles, no reference data.
  const asToken = await connectAgent({ Authorization: `Bearer ${reader.accessToken}` });
  expect(await rightsOf(asToken)).toMatchObject({
    posts: { create: 'some', update: 'some', delete: 'some' },
    articles: { create: true, publish: true },
    categories: { read: true, create: false },
  });
  // The host's own user (the demo's X-Demo-User header stands for the host's auth): Alice, an admin.
  const asAlice = await connectAgent({ 'X-Demo-User': 'alice' });
  expect((await rightsOf(asAlice)).categories).toMatchObject({ create: true, update: true, delete: true });
  // A bad credential is REST's 401, before any MCP message is read.
  await expect(connectAgent({ 'X-API-Key': 'ck_not-a-key' })).rejects.toThrow(/401/);
});

describe('the write tools (mcp: { write: true })', () => {
  it('offers a read-write API key and the host admin the write tools their rules allow', async () => {
    const writer = await userWithKey('writer-agent@example.com', ['read', 'write']);
    // Also as `Authorization: Bearer ck_…`, the README's other form.
    expect(await toolNames(await connectAgent({ Authorization: `Bearer ${writer.key}` }))).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    expect(await toolNames(await connectAgent({ 'X-Demo-User': 'alice' }))).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
  });

  it('lets an agent with a read-write key draft and publish an article, which the public then reads over REST', async () => {
    const writer = await userWithKey('editor-agent@example.com', ['read', 'write']);
    const agent = await connectAgent({ 'X-API-Key': writer.key });
    const created = (await call(agent, 'create', { collection: 'articles', data: { title: 'Written by an agent', slug: 'by-an-agent' } })) as {
      record: { id: string };
      etag: string;
    };
    expect(created.etag).toEqual(expect.any(String));
    // A drafts collection: the create is a draft, not yet public.
    expect((await request(example.app).get(`/api/articles/${created.record.id}`)).status).toBe(404);
    await call(agent, 'publish', { collection: 'articles', id: created.record.id, etag: created.etag });
    const published = await request(example.app).get(`/api/articles/${created.record.id}`).expect(200);
    expect(published.body).toMatchObject({ title: 'Written by an agent', slug: 'by-an-agent' });
    const fetched = (await call(agent, 'get', { collection: 'articles', id: created.record.id })) as { record: unknown; etag: string };
    expect(fetched.record).toEqual(published.body);
    expect(fetched.etag).toBe(published.headers.etag);
  });

  it("writes as the host's admin, and refuses a user's write their rules deny as a tool error", async () => {
    const alice = await connectAgent({ 'X-Demo-User': 'alice' });
    const category = (await call(alice, 'create', { collection: 'categories', data: { name: 'From an agent' } })) as { record: { id: string } };
    expect((await request(example.app).get(`/api/categories/${category.record.id}`).expect(200)).body.name).toBe('From an agent');
    const { accessToken } = await userWithKey('token-agent@example.com', ['read']);
    const withToken = await connectAgent({ Authorization: `Bearer ${accessToken}` });
    const refused = await withToken.callTool({ name: 'create', arguments: { collection: 'categories', data: { name: 'Not mine to add' } } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { status: 403 } });
  });
});

it('refuses a browser page of another site (DNS rebinding) with a 403 before any tool runs', async () => {
  const answer = await request(example.app)
    .post('/api/mcp')
    .set('Origin', 'http://attacker.example')
    .set('Accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  expect(answer.status).toBe(403);
});
