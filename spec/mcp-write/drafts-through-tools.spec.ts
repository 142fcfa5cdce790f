// On a drafts collection the write tools work on working copies, as REST's draft routes do: create makes a
// draft only (nothing public), update and saveDraft save the working copy (etag: the working copy's, as
// GET /:id/draft's ETag), publish makes it the public record. Each answer is REST's ({ record, etag }).
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import { type McpWriteApp, as, auditEntries, call, connect, createMcpWriteApp, toolError } from './mcp-write-app';

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

/** The working copy and its ETag as REST's GET /pages/:id/draft answers them. */
async function restDraft(id: string): Promise<{ record: unknown; etag: string }> {
  const res = await request(t.app).get(`/api/pages/${id}/draft`).set('X-Test-User', JSON.stringify(EDITOR)).expect(200);
  return { record: res.body, etag: res.headers.etag };
}

it('creates a draft only, then saves it and publishes it, answering as REST answers', async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { body: 'no title yet' } });
  expect(created.isError).toBe(false);
  const { id } = created.structured.record as { id: string };
  expect(created.structured.record).toMatchObject({ body: 'no title yet', _status: 'draft' });
  expect(created.structured).toEqual(await restDraft(id));
  // Not public: nobody reads a never-published record.
  await request(t.app).get(`/api/pages/${id}`).expect(404);

  const saved = await call(editor, 'saveDraft', { collection: 'pages', id, etag: created.structured.etag, data: { title: 'Home' } });
  expect(saved.structured).toEqual(await restDraft(id));
  expect(saved.structured.record).toMatchObject({ title: 'Home', body: 'no title yet', _status: 'draft' });

  const published = await call(editor, 'publish', { collection: 'pages', id, etag: saved.structured.etag });
  expect(published.isError).toBe(false);
  const live = await request(t.app).get(`/api/pages/${id}`).expect(200);
  // The published record, with the working copy's etag: what the next write on the record compares.
  expect(published.structured).toEqual({ record: live.body, etag: (await restDraft(id)).etag });

  const rows = (await auditEntries(t)).filter((row) => row.resource.id === id);
  expect(rows.map((row) => [row.action, row.request.origin])).toEqual(expect.arrayContaining([['publish', 'mcp']]));
});

it('update saves the working copy with its etag; the public record stays until publish', async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { title: 'Live' } });
  const { id } = created.structured.record as { id: string };
  const published = await call(editor, 'publish', { collection: 'pages', id, etag: created.structured.etag });
  expect(published.isError).toBe(false);
  const draft = await restDraft(id);

  const updated = await call(editor, 'update', { collection: 'pages', id, etag: draft.etag, data: { title: 'Next' } });
  expect(updated.isError).toBe(false);
  expect(updated.structured).toEqual(await restDraft(id));
  expect(updated.structured.record).toMatchObject({ title: 'Next', _status: 'changed' });
  expect((await request(t.app).get(`/api/pages/${id}`).expect(200)).body.title).toBe('Live');
});

it("refuses the published record's etag where the working copy's is asked for (412, naming etag)", async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { title: 'One' } });
  const { id } = created.structured.record as { id: string };
  const published = await call(editor, 'publish', { collection: 'pages', id, etag: created.structured.etag });
  await call(editor, 'saveDraft', { collection: 'pages', id, data: { title: 'Two' }, etag: published.structured.etag });
  const stale = await call(editor, 'publish', { collection: 'pages', id, etag: created.structured.etag });
  expect(toolError(stale)).toMatchObject({ status: 412 });
  expect(toolError(stale).errors).toEqual([expect.objectContaining({ argument: 'etag' })]);
  expect((await request(t.app).get(`/api/pages/${id}`).expect(200)).body.title).toBe('One');
});

it("refuses publishing a working copy that is not valid as a published record (400, naming the working copy's field)", async () => {
  const created = await call(editor, 'create', { collection: 'pages', data: { body: 'untitled' } });
  const { id } = created.structured.record as { id: string };
  const answer = await call(editor, 'publish', { collection: 'pages', id, etag: created.structured.etag });
  expect(toolError(answer).status).toBe(400);
  // publish takes no data: the problem names the working copy's field.
  expect(toolError(answer).errors).toEqual([expect.objectContaining({ argument: 'title' })]);
  expect(answer.text).toMatch(/title/);
  await request(t.app).get(`/api/pages/${id}`).expect(404);
});
