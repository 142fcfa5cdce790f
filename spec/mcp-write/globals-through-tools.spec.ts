// Globals through the tools: `get { global }` answers { record, etag } as GET /globals/<slug> does, and
// `update { global, data, etag }` runs PATCH /globals/<slug>'s operation (on a drafts global it saves the
// global's draft, as PATCH /globals/<slug>/draft does). Exactly one of `collection` and `global` is named.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import type { GlobalConfig } from '../../lib';
import { createMcpTestApp } from '../mcp/mcp-test-app';
import { type McpWriteApp, WRITE_COLLECTIONS, as, auditEntries, call, connect, toolError } from './mcp-write-app';

jest.setTimeout(30_000);

type Role = { role?: string } | null;
const isEditor = ({ user }: { user: Role }) => user?.role === 'editor';

const GLOBALS: GlobalConfig[] = [
  { slug: 'site', access: { read: () => true, update: isEditor }, fields: { title: { type: 'text' } } },
  { slug: 'banner', versions: { drafts: true }, access: { read: () => true, update: isEditor, publish: isEditor, readDrafts: isEditor }, fields: { text: { type: 'text' } } },
];

const EDITOR = { id: 'e1', role: 'editor' };
let t: McpWriteApp;
let editor: Client;
let anonymous: Client;
beforeAll(async () => {
  t = await createMcpTestApp({ write: true }, { collections: WRITE_COLLECTIONS, extra: { globals: GLOBALS, audit: { collections: ['site'] } } });
  editor = await connect(t, as.host(EDITOR));
  anonymous = await connect(t);
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

async function restGlobal(path: string): Promise<{ record: unknown; etag: string }> {
  const res = await request(t.app).get(`/api/globals/${path}`).set('X-Test-User', JSON.stringify(EDITOR)).expect(200);
  return { record: res.body, etag: res.headers.etag };
}

it('get { global } answers the global and its etag as GET /globals/<slug> does', async () => {
  const answer = await call(anonymous, 'get', { global: 'site' });
  expect(answer.isError).toBe(false);
  expect(answer.structured).toEqual(await restGlobal('site'));
});

it('update { global, etag, data } writes it as PATCH /globals/<slug> does, etag required', async () => {
  const read = await call(editor, 'get', { global: 'site' });
  const missing = toolError(await call(editor, 'update', { global: 'site', data: { title: 'No etag' } }));
  expect(missing).toMatchObject({ status: 428, errors: [expect.objectContaining({ argument: 'etag' })] });

  const updated = await call(editor, 'update', { global: 'site', etag: read.structured.etag, data: { title: 'New title' } });
  expect(updated.isError).toBe(false);
  expect(updated.structured).toEqual(await restGlobal('site'));
  expect(updated.structured.record).toMatchObject({ title: 'New title' });

  const stale = toolError(await call(editor, 'update', { global: 'site', etag: read.structured.etag, data: { title: 'Stale' } }));
  expect(stale).toMatchObject({ status: 412, errors: [expect.objectContaining({ argument: 'etag' })] });
  // The stored change and both refusals, each from MCP.
  const rows = (await auditEntries(t)).filter((row) => (row.resource as { global?: string }).global === 'site');
  expect(rows.map((row) => [row.outcome.status, row.request.origin])).toEqual([[428, 'mcp'], [200, 'mcp'], [412, 'mcp']]);
});

it("update on a drafts global saves its draft; get with draft: true reads it, with the etag update takes", async () => {
  const before = await restGlobal('banner');
  const draft = await call(editor, 'get', { global: 'banner', draft: true });
  expect(draft.structured).toEqual(await restGlobal('banner/draft'));
  const saved = await call(editor, 'update', { global: 'banner', etag: draft.structured.etag, data: { text: 'Sale!' } });
  expect(saved.isError).toBe(false);
  expect(saved.structured).toEqual(await restGlobal('banner/draft'));
  expect(saved.structured.record).toMatchObject({ text: 'Sale!', _status: 'draft' });
  // Not published: the global as everyone reads it is unchanged.
  expect(await restGlobal('banner')).toEqual(before);
});

it("publish { global } publishes a drafts global's draft as POST /globals/<slug>/publish, answering the working copy's etag", async () => {
  const draft = await call(editor, 'get', { global: 'banner', draft: true });
  const saved = await call(editor, 'update', { global: 'banner', etag: draft.structured.etag, data: { text: 'Published banner' } });
  const published = await call(editor, 'publish', { global: 'banner', etag: saved.structured.etag });
  expect(published.isError).toBe(false);
  const live = await restGlobal('banner');
  expect(live.record).toMatchObject({ text: 'Published banner' });
  expect(published.structured).toEqual({ record: live.record, etag: (await restGlobal('banner/draft')).etag });
  // The etag it answered is the one the next write takes.
  const next = await call(editor, 'update', { global: 'banner', etag: published.structured.etag, data: { text: 'Next' } });
  expect(next.isError).toBe(false);
});

it("REST's POST /globals/<slug>/publish takes the ETag of GET /globals/<slug>/draft", async () => {
  const editorHeader = { 'X-Test-User': JSON.stringify(EDITOR) };
  const saved = await request(t.app).patch('/api/globals/banner/draft').set(editorHeader).send({ text: 'Over REST' }).expect(200);
  await request(t.app).post('/api/globals/banner/publish').set(editorHeader).set('If-Match', saved.headers.etag).expect(200);
  expect((await restGlobal('banner')).record).toMatchObject({ text: 'Over REST' });
});

it('a caller the global\'s rule refuses gets a tool error', async () => {
  const read = await call(anonymous, 'get', { global: 'site' });
  const refused = toolError(await call(anonymous, 'update', { global: 'site', etag: read.structured.etag, data: { title: 'x' } }));
  expect([401, 403]).toContain(refused.status);
});

it('names the argument at fault: neither or both of collection and global, an unknown global, an id with a global', async () => {
  const argumentOf = async (tool: string, args: Record<string, unknown>) => toolError(await call(editor, tool, args)).errors?.[0]?.argument;
  expect(await argumentOf('get', {})).toBe('collection');
  expect(await argumentOf('get', { collection: 'articles', global: 'site', id: '0123456789abcdef01234567' })).toBe('global');
  expect(await argumentOf('get', { collection: 'articles' })).toBe('id');
  expect(await argumentOf('get', { global: 'nope' })).toBe('global');
  expect(await argumentOf('get', { global: 'site', id: '0123456789abcdef01234567' })).toBe('id');
  expect(await argumentOf('get', { global: 'site', fields: ['title'] })).toBe('fields');
  expect(await argumentOf('update', { data: {}, etag: '"x"' })).toBe('collection');
  expect(await argumentOf('update', { global: 'nope', data: {}, etag: '"x"' })).toBe('global');
  const undrafted = toolError(await call(editor, 'publish', { global: 'site' }));
  expect(undrafted).toMatchObject({ status: 400, code: 'drafts_off', errors: [expect.objectContaining({ argument: 'global' })] });
  const unknown = await call(editor, 'get', { global: 'nope' });
  expect(unknown.text).toMatch(/site/);
});
