// Every refused write is a tool error (`isError: true`) naming the argument it is about, never a JSON-RPC
// error nor a 500, and writes nothing: an unknown collection, a bad id, a missing, malformed or stale etag,
// a field the caller may not write or that does not exist, an invalid value, a taken unique value, an
// access rule's refusal. A refusal REST would tell the audit log (401, 403, 409, 412, 428) is told to it
// too, with origin `mcp`; a malformed call (400) is not.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import { eventually } from '../helpers/eventually';
import { type McpWriteApp, type ToolAnswer, as, auditEntries, call, connect, createMcpWriteApp, toolError } from './mcp-write-app';

jest.setTimeout(30_000);

let t: McpWriteApp;
let editor: Client;
let admin: Client;
let anonymous: Client;
beforeAll(async () => {
  t = await createMcpWriteApp();
  [editor, admin, anonymous] = await Promise.all([connect(t, as.host({ id: 'e1', role: 'editor' })), connect(t, as.host({ id: 'a1', role: 'admin' })), connect(t, {})]);
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const articles = () => t.connection.collection('articles');

/** An article stored over REST; its id and ETag. */
async function article(data: Record<string, unknown> = { title: 'a' }): Promise<{ id: string; etag: string }> {
  const res = await request(t.app).post('/api/articles').set('X-Test-User', JSON.stringify({ id: 'a1', role: 'admin' })).send(data).expect(201);
  return { id: res.body.id, etag: res.headers.etag };
}

/** The tool error's arguments and codes. */
function named(answer: ToolAnswer): Array<[string | undefined, string]> {
  return (toolError(answer).errors ?? []).map((e) => [e.argument, e.code]);
}

const REFUSED = [401, 403, 409, 412, 428];
/** The refused writes the audit log holds for `id` (or for the collection, without one). */
async function refusals(collection: string, id?: string) {
  return (await auditEntries(t)).filter((row) => REFUSED.includes(row.outcome.status) && row.resource.collection === collection && (id === undefined || row.resource.id === id));
}

it('refuses an unknown collection, naming collection and listing those the caller may use', async () => {
  const answer = await call(editor, 'create', { collection: 'nope', data: { title: 'x' } });
  expect(toolError(answer)).toMatchObject({ status: 400 });
  expect(named(answer)).toEqual([['collection', 'unknown_collection']]);
  expect(answer.text).toMatch(/you may use: .*articles/);
});

it('refuses saveDraft and publish on a collection without drafts, naming collection', async () => {
  const { id } = await article();
  for (const [tool, args] of [['saveDraft', { data: { title: 'x' } }], ['publish', {}]] as const) {
    const answer = await call(editor, tool, { collection: 'articles', id, ...args });
    expect(named(answer)).toEqual([['collection', 'drafts_off']]);
  }
});

it('refuses a malformed id or one naming no record, naming id, writing nothing', async () => {
  const { etag } = await article();
  const malformed = await call(editor, 'update', { collection: 'articles', id: 'not-an-id', etag, data: { title: 'x' } });
  expect(toolError(malformed).status).toBe(404);
  expect(named(malformed)).toEqual([['id', 'not_found']]);
  const missing = await call(admin, 'delete', { collection: 'articles', id: '0123456789abcdef01234567' });
  expect(named(missing)).toEqual([['id', 'not_found']]);
  expect(await articles().findOne({ title: 'x' })).toBeNull();
});

it('refuses an update without etag (428), naming etag, told to the audit log; nothing written', async () => {
  const { id } = await article();
  const answer = await call(editor, 'update', { collection: 'articles', id, data: { title: 'blind' } });
  expect(toolError(answer)).toMatchObject({ status: 428, code: 'precondition_required' });
  expect(named(answer)).toEqual([['etag', 'precondition_required']]);
  expect(answer.text).toMatch(/etag/);
  expect(await articles().findOne({ title: 'blind' })).toBeNull();
  await eventually(async () =>
    expect(await refusals('articles', id)).toEqual([
      expect.objectContaining({ action: 'update', actor: { type: 'host', id: 'e1' }, outcome: { status: 428, code: 'precondition_required' }, request: expect.objectContaining({ origin: 'mcp', path: '/api/mcp' }) }),
    ]),
  );
});

it('refuses a stale etag (412), naming etag, told to the audit log; nothing written', async () => {
  const { id, etag } = await article();
  await request(t.app).patch(`/api/articles/${id}`).set('X-Test-User', JSON.stringify({ id: 'a1', role: 'admin' })).send({ body: 'changed meanwhile' }).expect(200);
  const answer = await call(editor, 'update', { collection: 'articles', id, etag, data: { title: 'stale' } });
  expect(toolError(answer)).toMatchObject({ status: 412, code: 'precondition_failed' });
  expect(named(answer)).toEqual([['etag', 'precondition_failed']]);
  expect(await articles().findOne({ title: 'stale' })).toBeNull();
  await eventually(async () => expect((await refusals('articles', id)).map((row) => [row.action, row.outcome.status, row.request.origin])).toEqual([['update', 412, 'mcp']]));
});

it('refuses a malformed etag or * on update, naming etag; a bare tag without its quotes is the same tag', async () => {
  const { id, etag } = await article();
  for (const bad of ['', '*', '"unterminated']) {
    const answer = await call(editor, 'update', { collection: 'articles', id, etag: bad, data: { title: 'bad tag' } });
    expect(named(answer)).toEqual([['etag', 'invalid_header']]);
  }
  expect(await articles().findOne({ title: 'bad tag' })).toBeNull();
  const bare = await call(editor, 'update', { collection: 'articles', id, etag: etag.slice(1, -1), data: { title: 'bare tag' } });
  expect(bare.isError).toBe(false);
});

it('needs an etag on delete where the collection requires If-Match (428), not elsewhere', async () => {
  const created = await call(anonymous, 'create', { collection: 'memos', data: { text: 'kept' } });
  const { id } = created.structured.record as { id: string };
  const answer = await call(anonymous, 'delete', { collection: 'memos', id });
  expect(named(answer)).toEqual([['etag', 'precondition_required']]);
  expect(await t.connection.collection('memos').countDocuments({ text: 'kept' })).toBe(1);
  await eventually(async () => expect((await refusals('memos', id)).map((row) => [row.action, row.outcome.status, row.actor])).toEqual([['delete', 428, { type: 'anonymous' }]]));
});

it('refuses a field the caller may not write (403), naming data.<field>, told to the audit log', async () => {
  const answer = await call(editor, 'create', { collection: 'articles', data: { title: 'pushy', featured: true } });
  expect(toolError(answer)).toMatchObject({ status: 403, code: 'forbidden_field' });
  expect(named(answer)).toEqual([['data.featured', expect.any(String)]]);
  expect(await articles().findOne({ title: 'pushy' })).toBeNull();
  await eventually(async () => expect((await refusals('articles')).some((row) => row.action === 'create' && row.outcome.status === 403 && row.request.origin === 'mcp')).toBe(true));
});

it('refuses unknown fields and invalid values (400), naming data.<field>, not told to the audit log', async () => {
  const before = (await refusals('articles')).length;
  const unknown = await call(editor, 'create', { collection: 'articles', data: { title: 'x', colour: 'red' } });
  expect(named(unknown)).toEqual([['data.colour', 'unknown_field']]);
  const invalid = await call(editor, 'create', { collection: 'articles', data: { body: 'no title' } });
  expect(toolError(invalid).status).toBe(400);
  expect(named(invalid)).toEqual([['data.title', expect.any(String)]]);
  const { id, etag } = await article();
  const wrongType = await call(editor, 'update', { collection: 'articles', id, etag, data: { title: 42 } });
  expect(named(wrongType)).toEqual([['data.title', expect.any(String)]]);
  expect(await articles().countDocuments({ body: 'no title' })).toBe(0);
  expect(await refusals('articles')).toHaveLength(before);
});

it('refuses a taken unique value (409), naming data.<field>', async () => {
  await article({ title: 'first', code: 'c-1' });
  const answer = await call(editor, 'create', { collection: 'articles', data: { title: 'second', code: 'c-1' } });
  expect(toolError(answer)).toMatchObject({ status: 409, code: 'unique_conflict' });
  expect(named(answer)).toEqual([['data.code', 'unique']]);
  expect(answer.text).not.toContain('c-1');
});

it("refuses what the access rules refuse (401 anonymous, 403 signed in), told to the audit log with who asked", async () => {
  const { id, etag } = await article();
  const anon = await call(anonymous, 'create', { collection: 'articles', data: { title: 'anon' } });
  expect(toolError(anon)).toMatchObject({ status: 401 });
  const forbidden = await call(editor, 'delete', { collection: 'articles', id, etag });
  expect(toolError(forbidden)).toMatchObject({ status: 403 });
  expect(await articles().countDocuments({ title: 'anon' })).toBe(0);
  expect(await articles().findOne({ title: 'a' })).not.toBeNull();
  await eventually(async () => expect((await refusals('articles', id)).map((row) => [row.action, row.outcome.status, row.actor])).toEqual([['delete', 403, { type: 'host', id: 'e1' }]]));
});

it('refuses an argument the tool does not take or of the wrong type as the SDK does: a tool error naming it', async () => {
  const extra = await call(editor, 'create', { collection: 'articles', data: { title: 'x' }, draft: true });
  expect(extra.isError).toBe(true);
  expect(extra.text).toMatch(/draft/);
  const notObject = await call(editor, 'create', { collection: 'articles', data: 'title=x' });
  expect(notObject.isError).toBe(true);
  expect(notObject.text).toMatch(/data/);
});
