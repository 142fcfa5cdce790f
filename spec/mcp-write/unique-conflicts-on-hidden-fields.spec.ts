// A unique conflict on a hidden field (one a hook fills) names neither the field nor a tool argument for it,
// over MCP and REST: clients know nothing of the field. (A unique field a caller may write but not read still
// answers 409 when its value is taken: that is what a unique constraint is; docs/hooks.md says so.)
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { createMcpTestApp, type McpTestApp } from '../mcp/mcp-test-app';
import { as, call } from '../mcp-write/mcp-write-app';

jest.setTimeout(60_000);
type Role = { role?: string } | null;
const isAdmin = ({ user }: { user: Role }) => user?.role === 'admin';
const PEOPLE: CollectionConfig = {
  slug: 'people',
  access: { read: () => true, create: () => true, update: () => true },
  fields: {
    name: { type: 'text' },
    ssn: { type: 'text', unique: true, access: { read: isAdmin } },
    handle: { type: 'text', unique: true, hidden: true },
  },
  hooks: { beforeChange: [({ data }) => ({ ...data, ...(typeof data.name === 'string' && { handle: `h-${data.name}` }) })] },
};
let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp({ write: true }, { collections: [PEOPLE] });
  const admin = await t.connect(as.host({ id: 'a1', role: 'admin' }));
  await call(admin, 'create', { collection: 'people', data: { name: 'alice', ssn: '123-45-6789' } });
});
afterAll(() => t.close());

it('never names a hidden field in a tool error', async () => {
  const user = await t.connect(as.host({ id: 'u1', role: 'user' }));
  const described = JSON.stringify((await call(user, 'describe', { collection: 'people' })).structured);
  expect(described).not.toMatch(/handle/);
  const answer = await call(user, 'create', { collection: 'people', data: { name: 'alice' } });
  expect(answer.isError).toBe(true);
  expect(answer.text + JSON.stringify(answer.structured)).not.toMatch(/handle/);
});

it('never names a hidden field in a REST 409 either', async () => {
  const res = await request(t.app).post('/api/people').set('X-Test-User', JSON.stringify({ id: 'u2', role: 'user' })).send({ name: 'alice' });
  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({ code: 'unique_conflict', detail: 'A record with these values already exists.' });
  expect(JSON.stringify(res.body)).not.toMatch(/handle/);
});
