// tools/list carries each tool's annotations, which agents use to run reads without asking and to warn
// before a destructive call: the read tools are read-only; create only adds; update, delete, saveDraft and
// publish replace or remove, and repeating one with the same arguments changes nothing more.
import { as, connect, createMcpWriteApp, type McpWriteApp } from './mcp-write-app';

jest.setTimeout(30_000);

let t: McpWriteApp;
beforeAll(async () => {
  t = await createMcpWriteApp();
});
afterAll(() => t.close());

it('annotates every tool', async () => {
  const client = await connect(t, as.host({ id: 'a1', role: 'admin' }));
  const { tools } = await client.listTools();
  const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
  for (const name of ['describe', 'find', 'get', 'count']) expect(annotations[name]).toEqual({ readOnlyHint: true });
  expect(annotations.create).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  for (const name of ['update', 'delete', 'saveDraft', 'publish']) expect(annotations[name]).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
});
