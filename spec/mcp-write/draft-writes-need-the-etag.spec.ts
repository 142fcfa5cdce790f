// On a drafts collection `saveDraft` and `publish` need the working copy's etag, as `update` does: an agent
// overwrites no editor's change it has not read, and publishes no change made after it reviewed the draft.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import { type McpWriteApp, as, call, connect, createMcpWriteApp } from './mcp-write-app';

jest.setTimeout(60_000);
let t: McpWriteApp;
let agent: Client;
const EDITOR = JSON.stringify({ id: 'e2', role: 'editor' });
beforeAll(async () => {
  t = await createMcpWriteApp();
  agent = await connect(t, as.host({ id: 'e1', role: 'editor' }));
});
afterAll(() => t.close());

it('saveDraft without etag does not write over a change made after the agent read the draft', async () => {
  const created = await call(agent, 'create', { collection: 'pages', data: { title: 'v1', body: 'agent read this' } });
  const id = (created.structured.record as { id: string }).id;
  // An editor changes the working copy after the agent read it.
  await request(t.app).patch(`/api/pages/${id}/draft`).set('X-Test-User', EDITOR).send({ body: 'EDITOR CHANGE' }).expect(200);
  // `update` refuses without etag (428)...
  expect((await call(agent, 'update', { collection: 'pages', id, data: { title: 'v2' } })).isError).toBe(true);
  // ...but saveDraft, the same write, goes through without one.
  const saved = await call(agent, 'saveDraft', { collection: 'pages', id, data: { body: 'agent overwrite' } });
  expect(saved.isError).toBe(true);
  const draft = await request(t.app).get(`/api/pages/${id}/draft`).set('X-Test-User', EDITOR);
  expect(draft.body.body).toBe('EDITOR CHANGE');
});

it('publish without etag does not publish a working copy changed after the agent read it', async () => {
  const created = await call(agent, 'create', { collection: 'pages', data: { title: 'reviewed', body: 'reviewed body' } });
  const id = (created.structured.record as { id: string }).id;
  await request(t.app).patch(`/api/pages/${id}/draft`).set('X-Test-User', EDITOR).send({ body: 'UNREVIEWED' }).expect(200);
  const published = await call(agent, 'publish', { collection: 'pages', id });
  expect(published.isError).toBe(true);
  expect((await request(t.app).get(`/api/pages/${id}`)).status).toBe(404);
});
