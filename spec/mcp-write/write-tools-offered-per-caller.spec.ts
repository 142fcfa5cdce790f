// tools/list shows each caller the write tools it may use: none without `mcp.write`; with it, create,
// update and delete where some collection's rules grant them to this caller (an API key without the write
// scope writes as an anonymous caller would), saveDraft and publish where a drafts collection does.
import type { Client } from '@modelcontextprotocol/client';
import { registerUser } from '../auth/auth-test-app';
import { type McpWriteApp, apiKeyOf, as, connect, createMcpWriteApp, withRole } from './mcp-write-app';

jest.setTimeout(30_000);

const WRITE_TOOLS = ['create', 'update', 'delete', 'saveDraft', 'publish'];

async function writeToolsOf(t: McpWriteApp, headers: Record<string, string>): Promise<string[]> {
  const client: Client = await connect(t, headers);
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).filter((name) => WRITE_TOOLS.includes(name)).sort();
}

describe('with mcp.write', () => {
  let t: McpWriteApp;
  beforeAll(async () => {
    t = await createMcpWriteApp();
  });
  afterAll(() => t.close());

  it('offers each caller the write tools its rules grant somewhere', async () => {
    // Admins and editors: every write tool (articles' delete is the admins', pages' delete the editors').
    expect(await writeToolsOf(t, as.host({ id: 'a', role: 'admin' }))).toEqual(['create', 'delete', 'publish', 'saveDraft', 'update'].sort());
    expect(await writeToolsOf(t, as.host({ id: 'e', role: 'editor' }))).toEqual(['create', 'delete', 'publish', 'saveDraft', 'update'].sort());
    // Anonymous: memos let anyone write; no drafts collection does.
    expect(await writeToolsOf(t, {})).toEqual(['create', 'delete', 'update']);
  });

  it("offers a read-only API key what anonymous callers may write (not its user's rights), a write key its user's", async () => {
    const editor = await withRole(t, await registerUser(t), 'editor');
    // A key without the write scope writes as nobody: memos only (anyone writes them), no drafts collection.
    expect(await writeToolsOf(t, as.apiKey(await apiKeyOf(t, editor, ['read'])))).toEqual(['create', 'delete', 'update']);
    expect(await writeToolsOf(t, as.apiKey(await apiKeyOf(t, editor, ['read', 'write'])))).toEqual(['create', 'delete', 'publish', 'saveDraft', 'update'].sort());
    expect(await writeToolsOf(t, as.bearer(editor))).toEqual(['create', 'delete', 'publish', 'saveDraft', 'update'].sort());
  });

  it('describes etag as required by update and the collection argument of every write tool', async () => {
    const client = await connect(t, as.host({ id: 'a', role: 'admin' }));
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of WRITE_TOOLS) expect(byName.get(name)?.inputSchema.properties).toHaveProperty('collection');
    expect(byName.get('update')?.description).toMatch(/etag.*required/i);
  });

  it('a tool the caller is not offered is unknown to it: the JSON-RPC error -32602 "Tool ... not found"', async () => {
    // Anonymous callers write memos only: no drafts collection lets them save a draft.
    const client = await connect(t, {});
    await expect(client.callTool({ name: 'saveDraft', arguments: { collection: 'pages', id: '0123456789abcdef01234567', data: {} } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Tool saveDraft not found/),
    });
  });
});

describe('without mcp.write', () => {
  it('offers no write tool, even to an admin', async () => {
    const t = await createMcpWriteApp(true);
    try {
      expect(await writeToolsOf(t, as.host({ id: 'a', role: 'admin' }))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
