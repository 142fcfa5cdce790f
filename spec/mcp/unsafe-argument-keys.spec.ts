// A `__proto__` (or `constructor`, `prototype`, `$…`) key in a tool call's arguments is a tool error naming the
// argument, as REST's query answers it, never silently dropped (a where under it would match every record).
import type { McpWriteApp } from '../mcp-write/mcp-write-app';
import { createMcpWriteApp } from '../mcp-write/mcp-write-app';
import { rpc, toolCall } from './rpc';

jest.setTimeout(60_000);
let t: McpWriteApp;
const editor = { 'X-Test-User': JSON.stringify({ id: 'e1', role: 'editor' }) };
beforeAll(async () => {
  t = await createMcpWriteApp();
  await t.connection.collection('articles').insertMany([{ title: 'one' }, { title: 'two' }]);
});
afterAll(() => t.close());

/** The tools/call result of a raw arguments JSON (`__proto__` stays an own key, as JSON.parse makes it). */
async function callRaw(name: string, argsJson: string) {
  const res = await rpc(t.app, toolCall(1, name, argsJson), editor);
  expect(res.status).toBe(200);
  return res.body.result as { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text: string }> };
}

it('a where condition under __proto__ is a tool error naming it, not "every record"', async () => {
  const result = await callRaw('count', '{"collection":"articles","where":{"__proto__":{"title":{"eq":"nothing"}}}}');
  // Today: { total: 2 }, the condition vanished.
  expect(result.isError).toBe(true);
  expect(result.content[0].text).toMatch(/__proto__/);
});

it('data.__proto__ on create is a tool error naming it, and nothing is written', async () => {
  const result = await callRaw('create', '{"collection":"articles","data":{"title":"proto-write","__proto__":{"featured":true}}}');
  expect(result.isError).toBe(true);
  expect(result.content[0].text).toMatch(/data\.__proto__|__proto__/);
  expect(await t.connection.collection('articles').countDocuments({ title: 'proto-write' })).toBe(0);
});

it('an unknown __proto__ argument is refused like any other unknown argument', async () => {
  const result = await callRaw('find', '{"collection":"articles","__proto__":{"where":{"title":{"eq":"x"}}}}');
  expect(result.isError).toBe(true);
});
