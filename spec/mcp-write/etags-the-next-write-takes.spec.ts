// The etag a tool answers is the one the next write compares: `get` with `fields` or `include` answers the
// record's own etag (a plain GET's ETag), and on a drafts collection `publish` answers the working copy's
// (what update, saveDraft and publish compare afterwards). A stale etag on a drafts collection's update
// says it takes the working copy's.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import { type McpWriteApp, as, call, connect, createMcpWriteApp, toolError } from './mcp-write-app';

jest.setTimeout(30_000);

const EDITOR = { id: 'e1', role: 'editor' };
let t: McpWriteApp;
let editor: Client;
beforeAll(async () => {
  t = await createMcpWriteApp();
  editor = await connect(t, as.host(EDITOR));
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

it('get with fields answers the etag of the whole record, which update takes', async () => {
  const created = await call(editor, 'create', { collection: 'articles', data: { title: 'First', body: 'b' } });
  const { id } = created.structured.record as { id: string };
  const plain = await request(t.app).get(`/api/articles/${id}`).expect(200);
  const picked = await call(editor, 'get', { collection: 'articles', id, fields: ['title'] });
  expect(picked.structured.record).toEqual({ id, title: 'First' });
  expect(picked.structured.etag).toBe(plain.headers.etag);
  const updated = await call(editor, 'update', { collection: 'articles', id, etag: picked.structured.etag, data: { title: 'Second' } });
  expect(updated.isError).toBe(false);
});

it('get with draft and fields answers the working copy\'s etag', async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { title: 'Draft', body: 'b' } });
  const { id } = created.structured.record as { id: string };
  const picked = await call(editor, 'get', { collection: 'pages', id, draft: true, fields: ['title'] });
  expect(picked.structured.etag).toBe(created.structured.etag);
});

it("publish answers the working copy's etag, which the next update takes", async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { title: 'One' } });
  const { id } = created.structured.record as { id: string };
  const published = await call(editor, 'publish', { collection: 'pages', id, etag: created.structured.etag });
  expect(published.isError).toBe(false);
  const live = await request(t.app).get(`/api/pages/${id}`).expect(200);
  expect(published.structured.record).toEqual(live.body);
  const draft = await call(editor, 'get', { collection: 'pages', id, draft: true });
  expect(published.structured.etag).toBe(draft.structured.etag);
  const updated = await call(editor, 'update', { collection: 'pages', id, etag: published.structured.etag, data: { body: 'v2' } });
  expect(updated.isError).toBe(false);
});

it("a stale etag on a drafts collection's update says it takes the working copy's (get with draft: true)", async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { title: 'One' } });
  const { id } = created.structured.record as { id: string };
  await call(editor, 'publish', { collection: 'pages', id, etag: created.structured.etag });
  await call(editor, 'saveDraft', { collection: 'pages', id, data: { title: 'Two' } });
  const live = await request(t.app).get(`/api/pages/${id}`).expect(200);
  const stale = await call(editor, 'update', { collection: 'pages', id, etag: live.headers.etag, data: { title: 'Three' } });
  expect(toolError(stale)).toMatchObject({ status: 412, errors: [expect.objectContaining({ argument: 'etag' })] });
  expect(toolError(stale).detail).toMatch(/working copy/);
  expect(toolError(stale).detail).toMatch(/draft: true/);
  // Said once: the problem naming etag repeats no detail in the text.
  expect(stale.text).toBe(toolError(stale).detail);
});
