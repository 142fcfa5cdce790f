// A draft save the update rule refuses is a refused write in the audit log, with origin mcp over MCP as
// with origin rest over REST (its access is checked before the operation starts).
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import { eventually } from '../helpers/eventually';
import { type McpWriteApp, as, auditEntries, call, connect, createMcpWriteApp, toolError } from './mcp-write-app';

jest.setTimeout(60_000);
let t: McpWriteApp;
let reader: Client;
let editor: Client;
// A reader may update memos (so it is offered `update`), not pages.
const READER = { id: 'r1', role: 'reader' };
beforeAll(async () => {
  t = await createMcpWriteApp();
  [reader, editor] = await Promise.all([connect(t, as.host(READER)), connect(t, as.host({ id: 'e1', role: 'editor' }))]);
});
afterAll(() => t.close());

const refusals = async (id: string, origin: string) =>
  (await auditEntries(t)).filter((row) => row.resource.collection === 'pages' && row.resource.id === id && row.request.origin === origin && row.outcome.status === 403);

async function page(): Promise<{ id: string; etag: string }> {
  const created = await call(editor, 'create', { collection: 'pages', data: { title: 'p' } });
  return { id: (created.structured.record as { id: string }).id, etag: created.structured.etag as string };
}

it('REST records a refused draft save (the baseline)', async () => {
  const { id, etag } = await page();
  await request(t.app).patch(`/api/pages/${id}/draft`).set('X-Test-User', JSON.stringify(READER)).set('If-Match', etag).send({ body: 'x' }).expect(403);
  await eventually(async () => expect((await refusals(id, 'rest')).map((row) => row.action)).toEqual(['draft']));
});

it('MCP update on a drafts collection refused by the update rule is recorded with origin mcp, as REST\'s is', async () => {
  const { id, etag } = await page();
  const answer = await call(reader, 'update', { collection: 'pages', id, etag, data: { body: 'x' } });
  expect(toolError(answer).status).toBe(403);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await eventually(async () => expect((await refusals(id, 'mcp')).map((row) => row.action)).toEqual(['draft']));
});
