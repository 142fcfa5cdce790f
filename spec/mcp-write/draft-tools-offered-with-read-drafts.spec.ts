// Saving a working copy reads it: on a drafts collection `update` and `saveDraft` are offered only to callers
// whose rules allow readDrafts too, as REST's draft save checks both.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import type { CollectionConfig } from '../../lib';
import { createMcpTestApp, type McpTestApp } from '../mcp/mcp-test-app';
import { as, call } from './mcp-write-app';

jest.setTimeout(60_000);
type Role = { role?: string } | null;
const role = (...roles: string[]) => ({ user }: { user: Role }) => roles.includes(user?.role ?? '');
const MANUALS: CollectionConfig = {
  slug: 'manuals',
  versions: { drafts: true },
  access: { read: () => true, create: role('contributor', 'editor'), update: role('contributor', 'editor'), delete: role('editor'), publish: role('editor'), readDrafts: role('editor') },
  fields: { title: { type: 'text', required: true }, body: { type: 'text' } },
};
let t: McpTestApp;
let contributor: Client;
beforeAll(async () => {
  // Only SECRETS besides: no other collection a contributor may update.
  t = await createMcpTestApp({ write: true }, { collections: [MANUALS] }, []);
  contributor = await t.connect(as.host({ id: 'c1', role: 'contributor' }));
});
afterAll(() => t.close());

it('offers saveDraft only where a save can succeed, and refuses a draft save without readDrafts', async () => {
  const ed = JSON.stringify({ id: 'e1', role: 'editor' });
  const created = await request(t.app).post('/api/manuals?draft=true').set('X-Test-User', ed).send({ title: 'Live' }).expect(201);
  const id = created.body.id as string;
  await request(t.app).post(`/api/manuals/${id}/publish`).set('X-Test-User', ed).expect(200);
  const { etag } = (await call(contributor, 'get', { collection: 'manuals', id })).structured as { etag: string };

  const copiesBefore = await t.connection.collection('manuals_drafts').countDocuments({});
  const offered = (await contributor.listTools()).tools.map((tool) => tool.name);
  const outcomes: Record<string, unknown> = {};
  for (const [name, args] of [['update', { collection: 'manuals', id, etag, data: { body: 'x' } }], ['saveDraft', { collection: 'manuals', id, data: { body: 'x' } }]] as const) {
    if (!offered.includes(name)) continue;
    const answer = await call(contributor, name, args as never);
    outcomes[name] = answer.isError ? (answer.structured.error as { status: number }).status : 'ok';
  }
  // A refused call writes nothing: no working copy was made for the published record.
  expect(await t.connection.collection('manuals_drafts').countDocuments({})).toBe(copiesBefore);
  // saveDraft works on drafts collections only, and no drafts collection lets the contributor save one: not
  // offered. update is offered for the collections it may update (its own account); on manuals it is refused.
  expect(offered).not.toContain('saveDraft');
  expect(outcomes.saveDraft).toBeUndefined();
  if (offered.includes('update')) expect(outcomes.update).toBe(403);
});
