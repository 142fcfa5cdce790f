// A `__proto__` (or `constructor`, `prototype`, `$…`) key in a tool call's arguments is a tool error naming the
// argument, as REST's query answers it, never silently dropped (a where under it would match every record).
import { registerUser } from '../auth/auth-test-app';
import { as, call, createMcpWriteApp, type McpWriteApp, toolError } from '../mcp-write/mcp-write-app';

jest.setTimeout(30_000);

let t: McpWriteApp;
beforeAll(async () => {
  t = await createMcpWriteApp();
  await t.connection.collection('notes').insertMany([{ text: 'alpha', rank: 1 }, { text: 'beta', rank: 2 }]);
});
afterAll(() => t.close());

it('a where whose only key is __proto__ is refused, naming it (observed: the filter is dropped, both records answered)', async () => {
  const client = await t.connect();
  const where = JSON.parse('{"__proto__": {"text": {"equals": "alpha"}}}') as Record<string, unknown>;
  const found = await call(client, 'find', { collection: 'notes', where });
  expect(found.isError).toBe(true);
  expect(toolError(found).errors?.[0]?.argument).toMatch(/^where\.__proto__/);
  const counted = await call(client, 'count', { collection: 'notes', where });
  expect(counted.isError).toBe(true);
});

it('a create whose data holds __proto__ is refused as REST refuses it (observed: created, the key ignored)', async () => {
  const user = await registerUser(t);
  const client = await t.connect(as.bearer(user));
  const created = await call(client, 'create', { collection: 'articles', data: JSON.parse('{"title":"t1","__proto__":{"featured":true}}') });
  expect(created.isError).toBe(true);
  expect(toolError(created).errors?.[0]?.argument).toBe('data.__proto__');
  expect(await t.connection.collection('articles').countDocuments({})).toBe(0);
});
