// The read tools over HTTP with the SDK's client: describe, find, get and count answer what REST answers
// (records shaped as REST shapes them, the ETag REST sends), for each kind of caller.
import request from 'supertest';
import { bearer, registerAdmin, registerUser } from '../auth/auth-test-app';
import { type McpTestApp, createMcpTestApp, structured } from './mcp-test-app';

jest.setTimeout(30_000);

let t: McpTestApp;
let noteId: string;

beforeAll(async () => {
  t = await createMcpTestApp();
  const admin = await registerAdmin(t);
  const notes = await Promise.all(
    [1, 2, 3].map((rank) => request(t.app).post('/api/notes').set(...bearer(admin.accessToken)).send({ text: `note ${rank}`, rank, internal: `internal ${rank}` })),
  );
  noteId = notes[0].body.id;
  // A hidden field is never written by clients: set where only the server reads it.
  await t.connection.collection('notes').updateMany({}, { $set: { token: 'tok' } });
  await request(t.app).post('/api/secrets').set(...bearer(admin.accessToken)).send({ code: 'x' });
});
afterAll(() => t.close());

describe('the read tools', () => {
  it('lists describe, find, get and count to an anonymous agent, and no write tool', async () => {
    const client = await t.connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['describe', 'find', 'get', 'count']);
    expect(client.getServerVersion()).toMatchObject({ name: 'content-router' });
  });

  it('find answers REST\'s cursor envelope, without hidden or read-denied fields', async () => {
    const client = await t.connect();
    const result = await client.callTool({ name: 'find', arguments: { collection: 'notes', sort: 'rank', limit: 2 } });
    expect(result.isError).toBeFalsy();
    const page = structured(result);
    const rest = await request(t.app).get('/api/notes?sort=rank&limit=2&cursor=');
    expect(page).toEqual(rest.body);
    expect((page.data as Array<Record<string, unknown>>).map((d) => d.text)).toEqual(['note 1', 'note 2']);
    expect(page.data).toEqual(expect.not.arrayContaining([expect.objectContaining({ internal: expect.anything() })]));
    expect(JSON.stringify(page)).not.toContain('tok');
    const text = (result.content as Array<{ type: string; text: string }>)[0];
    expect(JSON.parse(text.text)).toEqual(page);
    const next = structured(await client.callTool({ name: 'find', arguments: { collection: 'notes', sort: 'rank', limit: 2, cursor: (page.meta as { nextCursor: string }).nextCursor } }));
    expect((next.data as Array<Record<string, unknown>>).map((d) => d.text)).toEqual(['note 3']);
  });

  it('find takes where as an object, fields and include', async () => {
    const client = await t.connect();
    const page = structured(await client.callTool({ name: 'find', arguments: { collection: 'notes', where: { rank: { gte: 2 } }, fields: ['text'] } }));
    expect(page.data).toEqual([{ id: expect.any(String), text: expect.any(String) }, { id: expect.any(String), text: expect.any(String) }]);
  });

  it('get answers the record and the ETag REST sends', async () => {
    const client = await t.connect();
    const answer = structured(await client.callTool({ name: 'get', arguments: { collection: 'notes', id: noteId } }));
    const rest = await request(t.app).get(`/api/notes/${noteId}`);
    expect(answer).toEqual({ record: rest.body, etag: rest.headers.etag });
  });

  it('count answers { total }', async () => {
    const client = await t.connect();
    expect(structured(await client.callTool({ name: 'count', arguments: { collection: 'notes', where: { rank: { lt: 3 } } } }))).toEqual({ total: 2 });
  });

  it('describe answers the caller\'s schema, and one collection by slug', async () => {
    const client = await t.connect();
    const schema = structured(await client.callTool({ name: 'describe', arguments: {} }));
    const slugs = (schema.collections as Array<{ slug: string }>).map((c) => c.slug);
    expect(slugs).toEqual(['notes']);
    expect(slugs).not.toContain('secrets');
    const notes = structured(await client.callTool({ name: 'describe', arguments: { collection: 'notes' } }));
    const fields = (notes.fields as Array<{ name: string }>).map((f) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['text', 'rank']));
    expect(fields).not.toContain('internal');
    expect(fields).not.toContain('token');
  });
});

describe('credentials', () => {
  it('a JWT bearer reads what its user may (an admin: the secrets and admin-only fields)', async () => {
    const admin = await registerAdmin(t);
    const client = await t.connect({ Authorization: `Bearer ${admin.accessToken}` });
    const secrets = structured(await client.callTool({ name: 'find', arguments: { collection: 'secrets' } }));
    expect(secrets.data).toEqual([expect.objectContaining({ code: 'x' })]);
    const note = structured(await client.callTool({ name: 'get', arguments: { collection: 'notes', id: noteId } }));
    expect(note.record).toMatchObject({ internal: 'internal 1' });
  });

  it('an API key reads as its user, within its scopes', async () => {
    const admin = await registerAdmin(t);
    const key = await request(t.app).post('/api/users/api-keys').set(...bearer(admin.accessToken)).send({ name: 'agent', scopes: ['read'] });
    const client = await t.connect({ 'X-API-Key': key.body.apiKey.key });
    expect(structured(await client.callTool({ name: 'count', arguments: { collection: 'secrets' } }))).toEqual({ total: 1 });
    const schema = structured(await client.callTool({ name: 'describe', arguments: { collection: 'secrets' } }));
    expect(schema.access).toMatchObject({ read: true, create: false });
  });

  it("the host's req.user reads as that user", async () => {
    const client = await t.connect({ 'X-Test-User': JSON.stringify({ id: 'host-1', role: 'admin' }) });
    expect(structured(await client.callTool({ name: 'count', arguments: { collection: 'secrets' } }))).toEqual({ total: 1 });
  });

  it('a signed-in user who is not an admin is refused the secrets, naming collection', async () => {
    const user = await registerUser(t);
    const client = await t.connect({ Authorization: `Bearer ${user.accessToken}` });
    const result = await client.callTool({ name: 'find', arguments: { collection: 'secrets' } });
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({ error: { status: 400, errors: [{ argument: 'collection' }] } });
  });

  it('a bad credential is REST\'s 401 before MCP runs', async () => {
    const res = await request(t.app)
      .post('/api/mcp')
      .set('Authorization', 'Bearer not-a-token')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.headers['www-authenticate']).toBeDefined();
  });
});
