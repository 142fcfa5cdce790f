// The write tools over HTTP, as an agent calls them with the SDK's client: create, update and delete run the
// operations REST runs and answer what REST answers ({ record, etag }: the record as REST's body, etag as
// REST's ETag header), for every credential REST takes (JWT bearer, API key, the host's req.user, anonymous
// where the rules let it write); stored changes are in the audit log with origin `mcp`.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import { registerUser } from '../auth/auth-test-app';
import { type McpWriteApp, apiKeyOf, as, auditEntries, call, connect, createMcpWriteApp, withRole } from './mcp-write-app';

jest.setTimeout(30_000);

let t: McpWriteApp;
beforeAll(async () => {
  t = await createMcpWriteApp();
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const agent = (headers: Record<string, string>): Promise<Client> => connect(t, headers);

/** The record and ETag a REST GET answers now. */
async function restGet(slug: string, id: string, headers: Record<string, string> = {}): Promise<{ body: unknown; etag: string }> {
  const res = await request(t.app).get(`/api/${slug}/${id}`).set(headers).expect(200);
  return { body: res.body, etag: res.headers.etag as string };
}

it('creates, updates and deletes with a JWT bearer, answering the record and ETag REST answers', async () => {
  const editor = await withRole(t, await registerUser(t), 'editor');
  const client = await agent(as.bearer(editor));

  const created = await call(client, 'create', { collection: 'articles', data: { title: 'Hello', body: 'first' } });
  expect(created.isError).toBe(false);
  const record = created.structured.record as { id: string; title: string };
  expect(record).toMatchObject({ title: 'Hello', body: 'first' });
  expect(created.structured).toEqual(await restGet('articles', record.id).then(({ body, etag }) => ({ record: body, etag })));
  // The text rendering is the same answer, for agents that read text.
  expect(JSON.parse(created.text)).toEqual(created.structured);

  const updated = await call(client, 'update', { collection: 'articles', id: record.id, etag: created.structured.etag, data: { body: 'second' } });
  expect(updated.isError).toBe(false);
  const now = await restGet('articles', record.id);
  expect(updated.structured).toEqual({ record: now.body, etag: now.etag });
  expect(now.body).toMatchObject({ title: 'Hello', body: 'second' });

  const admin = await agent(as.bearer(await withRole(t, await registerUser(t), 'admin')));
  const deleted = await call(admin, 'delete', { collection: 'articles', id: record.id, etag: now.etag });
  expect(deleted).toMatchObject({ isError: false, structured: { deleted: true } });
  await request(t.app).get(`/api/articles/${record.id}`).expect(404);
});

it('writes with an API key holding the write scope, as the key\'s user', async () => {
  const editor = await withRole(t, await registerUser(t), 'editor');
  const client = await agent(as.apiKey(await apiKeyOf(t, editor, ['read', 'write'])));
  const created = await call(client, 'create', { collection: 'articles', data: { title: 'By key' } });
  expect(created.isError).toBe(false);
  const { id } = created.structured.record as { id: string };
  const updated = await call(client, 'update', { collection: 'articles', id, etag: created.structured.etag, data: { title: 'By key, again' } });
  expect(updated.structured.record).toMatchObject({ id, title: 'By key, again' });
  const [entry] = (await auditEntries(t)).filter((row) => row.resource.id === id && row.action === 'create');
  expect(entry.actor).toMatchObject({ id: editor.id });
});

it("writes as the host's req.user, and anonymously where the collection's rules let anyone write", async () => {
  const host = await agent(as.host({ id: 'h1', role: 'editor' }));
  const created = await call(host, 'create', { collection: 'articles', data: { title: 'By host' } });
  expect(created.isError).toBe(false);
  const { id } = created.structured.record as { id: string };
  expect((await call(host, 'update', { collection: 'articles', id, etag: created.structured.etag, data: { body: 'x' } })).isError).toBe(false);

  const anonymous = await agent({});
  const note = await call(anonymous, 'create', { collection: 'memos', data: { text: 'hi' } });
  expect(note.isError).toBe(false);
  const noteId = (note.structured.record as { id: string }).id;
  expect((await call(anonymous, 'delete', { collection: 'memos', id: noteId, etag: note.structured.etag })).structured).toEqual({ deleted: true });
});

it('records every stored change in the audit log with origin mcp, as REST records its own', async () => {
  const client = await agent(as.host({ id: 'h2', role: 'admin' }));
  const created = await call(client, 'create', { collection: 'articles', data: { title: 'Logged' } });
  const { id } = created.structured.record as { id: string };
  const updated = await call(client, 'update', { collection: 'articles', id, etag: created.structured.etag, data: { body: 'b' } });
  await call(client, 'delete', { collection: 'articles', id, etag: updated.structured.etag });

  const rows = (await auditEntries(t)).filter((row) => row.resource.id === id);
  expect(rows.map((row) => [row.action, row.outcome.status, row.request.origin, row.request.method, row.request.path])).toEqual([
    ['create', 201, 'mcp', 'POST', '/api/mcp'],
    ['update', 200, 'mcp', 'POST', '/api/mcp'],
    ['delete', 200, 'mcp', 'POST', '/api/mcp'],
  ]);
  expect(rows[0].actor).toEqual({ type: 'host', id: 'h2' });
  expect(rows[1].changedFields).toEqual(['body']);
});

it('answers no etag where an afterChange hook changed the answer, as REST sends no ETag then', async () => {
  const client = await agent(as.host({ id: 'h3', role: 'editor' }));
  const created = await call(client, 'create', { collection: 'stamped', data: { title: 'T' } });
  const rest = await request(t.app).post('/api/stamped').set('X-Test-User', JSON.stringify({ id: 'h3', role: 'editor' })).send({ title: 'T' }).expect(201);
  expect(rest.headers.etag).toBeUndefined();
  expect(created.structured).toEqual({ record: { ...rest.body, id: expect.any(String), createdAt: expect.any(String), updatedAt: expect.any(String) } });
  expect(created.structured.record).toMatchObject({ receipt: 'stored' });
});
