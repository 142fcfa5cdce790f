// An access rule written for records (`({ data }) => data.owner === user.id`) throws when the caller's schema
// asks it without one. That right depends on the record: `'some'`, in GET /schema and in MCP alike, and
// the endpoint keeps serving (tools/list, tool calls); nothing is logged per request.
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { type McpTestApp, SECRETS, createMcpTestApp, structured } from './mcp-test-app';

jest.setTimeout(30_000);

type Args = { user: { id?: string } | null; data?: { owner?: string }; id?: string };

/** Rules that read the body or the id without checking they are there. */
const TASKS: CollectionConfig = {
  slug: 'tasks',
  access: {
    read: () => true,
    create: ({ user, data }: Args) => data!.owner === user?.id,
    update: ({ id }: Args) => id!.length > 0,
    delete: () => {
      throw new Error('rule exploded');
    },
  },
  fields: { title: { type: 'text' }, owner: { type: 'text' } },
};

let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp({ write: true }, {}, [SECRETS, TASKS]);
  await t.connection.collection('tasks').insertOne({ title: 'one', owner: 'u1', createdAt: new Date(), updatedAt: new Date() });
});
afterAll(() => t.close());

const HOST = { 'X-Test-User': JSON.stringify({ id: 'u1' }) };

it('GET /schema answers "some" for the rights whose rule needs a record', async () => {
  const res = await request(t.app).get('/api/schema').set(HOST).expect(200);
  const tasks = (res.body.collections as Array<{ slug: string; access: unknown }>).find((c) => c.slug === 'tasks');
  expect(tasks?.access).toEqual({ read: true, create: 'some', update: 'some', delete: 'some' });
  expect(t.logs).toEqual([]);
});

it('MCP keeps serving: tools/list offers the write tools, describe and a tool call answer', async () => {
  const client = await t.connect(HOST);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['describe', 'find', 'get', 'count', 'create', 'update', 'delete']));
  const described = await client.callTool({ name: 'describe', arguments: { collection: 'tasks' } });
  expect(structured(described)).toMatchObject({ access: { create: 'some', update: 'some', delete: 'some' } });
  const counted = await client.callTool({ name: 'count', arguments: { collection: 'tasks' } });
  expect(counted.isError).toBeFalsy();
  expect(structured(counted)).toEqual({ total: 1 });
  expect(t.logs).toEqual([]);
});
