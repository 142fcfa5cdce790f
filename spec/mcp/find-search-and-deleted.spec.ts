// `find` takes REST's list parameters `search` (the collection's search fields) and `includeDeleted`
// (soft-deleted records too, for callers whose delete rule allows it), parsed by the same query parser.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import type { CollectionConfig } from '../../lib';
import { type McpTestApp, createMcpTestApp, structured } from './mcp-test-app';

jest.setTimeout(30_000);

const ENTRIES: CollectionConfig = {
  slug: 'entries',
  softDelete: true,
  search: ['title'],
  access: { read: () => true, create: () => true, update: () => true, delete: () => true },
  fields: { title: { type: 'text' }, body: { type: 'text' } },
};

let t: McpTestApp;
let client: Client;
beforeAll(async () => {
  t = await createMcpTestApp(true, {}, [ENTRIES]);
  const ids: string[] = [];
  for (const title of ['About pagination', 'Cursor PAGINATION', 'Other']) {
    ids.push((await request(t.app).post('/api/entries').send({ title, body: 'pagination' }).expect(201)).body.id);
  }
  await request(t.app).delete(`/api/entries/${ids[1]}`).expect(200);
  client = await t.connect();
});
afterAll(() => t.close());

async function titles(args: Record<string, unknown>): Promise<string[]> {
  const result = await client.callTool({ name: 'find', arguments: { collection: 'entries', sort: 'title', ...args } });
  expect(result.isError).toBeFalsy();
  return (structured(result).data as Array<{ title: string }>).map((d) => d.title);
}

it('search matches the search fields as REST\'s search does', async () => {
  expect(await titles({ search: 'pagination' })).toEqual(['About pagination']);
  const rest = await request(t.app).get('/api/entries?search=pagination&sort=title&cursor=').expect(200);
  expect(structured(await client.callTool({ name: 'find', arguments: { collection: 'entries', sort: 'title', search: 'pagination' } }))).toEqual(rest.body);
});

it('includeDeleted lists soft-deleted records too', async () => {
  expect(await titles({})).toEqual(['About pagination', 'Other']);
  expect(await titles({ includeDeleted: true })).toEqual(['About pagination', 'Cursor PAGINATION', 'Other']);
  expect(await titles({ includeDeleted: true, search: 'pagination' })).toEqual(['About pagination', 'Cursor PAGINATION']);
});

it('a bad search is a tool error naming `search`', async () => {
  const result = await client.callTool({ name: 'find', arguments: { collection: 'entries', search: 'x'.repeat(201) } });
  expect(result.isError).toBe(true);
  expect(structured(result)).toMatchObject({ error: { status: 400, errors: [expect.objectContaining({ argument: 'search' })] } });
});
