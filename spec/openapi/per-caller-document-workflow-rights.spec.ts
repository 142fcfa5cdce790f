// On a drafts collection, saving or discarding a working copy and every history route need readDrafts too:
// a caller with update but no readDrafts sees none of them in its document, and GET /schema does not claim
// readVersions for it, since REST refuses each of them.
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';

jest.setTimeout(30_000);

const isAdmin = ({ user }: { user: { role?: string } | null }) => user?.role === 'admin';
const KEPT: CollectionConfig = {
  slug: 'kept',
  versions: { drafts: true },
  access: { read: () => true, create: () => true, update: () => true, publish: isAdmin, readDrafts: isAdmin },
  fields: { title: { type: 'text' } },
};
const ADMIN = JSON.stringify({ id: 'a1', role: 'admin' });

let t: McpTestApp;
let id: string;
beforeAll(async () => {
  t = await createMcpTestApp(true, { collections: [KEPT], extra: { docs: { perCaller: true } } });
  id = (await request(t.app).post('/api/kept').set('X-Test-User', ADMIN).send({ title: 'v1' })).body.id;
});
afterAll(() => t.close());

it('REST refuses the anonymous caller the history and the draft save (the premise)', async () => {
  expect((await request(t.app).get(`/api/kept/${id}/versions`)).status).toBe(401);
  expect((await request(t.app).patch(`/api/kept/${id}/draft`).send({ title: 'x' })).status).toBe(401);
});

it("the anonymous caller's document leaves out the routes REST refuses it", async () => {
  const doc = (await request(t.app).get('/api/docs/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  expect(Object.keys(doc.paths).filter((path) => path.startsWith('/kept/{id}/versions'))).toEqual([]);
  expect(Object.keys(doc.paths['/kept/{id}/draft'] ?? {})).not.toContain('patch');
  expect(Object.keys(doc.paths['/kept/{id}/draft'] ?? {})).not.toContain('delete');
});

it('/schema does not claim readVersions for a caller the history routes refuse', async () => {
  const schema = (await request(t.app).get('/api/schema')).body as { collections: Array<{ slug: string; access: Record<string, unknown> }> };
  expect(schema.collections.find((c) => c.slug === 'kept')?.access.readVersions).toBe(false);
});
