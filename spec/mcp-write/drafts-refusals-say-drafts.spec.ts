// Refusals about drafts say so: a draft tool or `draft: true` on a collection without drafts is a 400
// `drafts_off` saying the collection has no drafts (not "Unknown collection"), and a `get` of a record
// that exists only as a draft hints at `draft: true` to a caller who may read drafts (to no one else).
import type { Client } from '@modelcontextprotocol/client';
import { type McpWriteApp, as, call, connect, createMcpWriteApp, toolError } from './mcp-write-app';

jest.setTimeout(30_000);

const EDITOR = { id: 'e1', role: 'editor' };
let t: McpWriteApp;
let editor: Client;
let articleId: string;
beforeAll(async () => {
  t = await createMcpWriteApp();
  editor = await connect(t, as.host(EDITOR));
  const created = await call(editor, 'create', { collection: 'articles', data: { title: 'A' } });
  articleId = (created.structured.record as { id: string }).id;
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

it('saveDraft and publish on a collection without drafts: 400 drafts_off, "articles has no drafts"', async () => {
  for (const [tool, args] of [
    ['saveDraft', { collection: 'articles', id: articleId, data: {} }],
    ['publish', { collection: 'articles', id: articleId }],
  ] as const) {
    const error = toolError(await call(editor, tool, args));
    expect(error).toMatchObject({ status: 400, code: 'drafts_off', errors: [expect.objectContaining({ argument: 'collection', code: 'drafts_off' })] });
    expect(error.detail).toMatch(/"articles" has no drafts/);
    expect(error.detail).not.toMatch(/Unknown collection/);
  }
});

it('find and get with draft: true on a collection without drafts: 400 drafts_off naming `draft`', async () => {
  for (const [tool, args] of [
    ['find', { collection: 'articles', draft: true }],
    ['get', { collection: 'articles', id: articleId, draft: true }],
  ] as const) {
    const answer = await call(editor, tool, args);
    const error = toolError(answer);
    expect(error).toMatchObject({ status: 400, code: 'drafts_off', errors: [expect.objectContaining({ argument: 'draft', code: 'drafts_off' })] });
    expect(error.detail).toMatch(/"articles" has no drafts/);
    expect(answer.text).not.toMatch(/readDrafts/);
  }
});

it('get of a record that exists only as a draft hints at draft: true to a caller who may read drafts', async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { title: 'Unpublished' } });
  const { id } = created.structured.record as { id: string };
  const error = toolError(await call(editor, 'get', { collection: 'pages', id }));
  expect(error).toMatchObject({ status: 404, errors: [expect.objectContaining({ argument: 'id' })] });
  expect(error.detail).toMatch(/draft: true/);

  // Anonymous callers do not read drafts of pages: no hint that one may be there.
  const anonymous = toolError(await call(await connect(t), 'get', { collection: 'pages', id }));
  expect(anonymous.status).toBe(404);
  expect(anonymous.detail).not.toMatch(/draft/);
});
