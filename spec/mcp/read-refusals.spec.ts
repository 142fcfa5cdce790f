// Every refusal of the read tools is a tool error (`isError: true`) naming the argument at fault, never a
// JSON-RPC error nor a 500; a malformed JSON-RPC body is the SDK's own parse error, not problem+json.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/client';
import { registerUser } from '../auth/auth-test-app';
import { type McpTestApp, SECRETS, createMcpTestApp, structured } from './mcp-test-app';

jest.setTimeout(30_000);

let t: McpTestApp;
let client: Client;

beforeAll(async () => {
  t = await createMcpTestApp(true, {
    collections: [
      {
        slug: 'broken',
        access: {
          // Fails on a record's read only: the caller's schema (asked as a list asks) still shows it.
          read: ({ id }) => {
            if (id) throw new Error('secret internals');
            return true;
          },
        },
        fields: { name: { type: 'text' } },
      },
    ],
  });
  client = await t.connect();
});
afterAll(() => t.close());

/** The tool error of a call: its text and its problems. */
async function refusal(name: string, args: Record<string, unknown>, on: Client = client) {
  const result = await on.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  const text = (result.content as Array<{ text: string }>)[0].text;
  return { text, content: structured(result) as { error?: { status: number; code: string; errors: Array<{ argument?: string; code: string }> } } };
}

describe('refusals of the read tools', () => {
  it('an unknown collection names `collection` and lists the usable ones', async () => {
    const { text, content } = await refusal('find', { collection: 'nope' });
    expect(content.error).toMatchObject({ status: 400, errors: [{ argument: 'collection', code: 'unknown_collection' }] });
    expect(text).toMatch(/collection: .*notes/);
  });

  it('describe of an unknown slug names `collection`', async () => {
    const { content } = await refusal('describe', { collection: 'secrets' });
    expect(content.error?.errors).toEqual([expect.objectContaining({ argument: 'collection' })]);
  });

  it('a field the caller may not read in where is an unknown field of where', async () => {
    const { content } = await refusal('find', { collection: 'notes', where: { internal: { equals: 'x' } } });
    expect(content.error).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(content.error?.errors[0].argument).toMatch(/^where/);
    const hidden = await refusal('count', { collection: 'notes', where: { token: { equals: 'tok' } } });
    expect(hidden.content.error?.errors[0].argument).toMatch(/^where/);
  });

  it('a $ operator in where is refused, naming where', async () => {
    const { content } = await refusal('find', { collection: 'notes', where: { rank: { $gt: 1 } } });
    expect(content.error?.errors[0].argument).toMatch(/^where/);
    const top = await refusal('find', { collection: 'notes', where: { $where: 'sleep(1000)' } });
    expect(top.content.error?.errors[0].argument).toMatch(/^where/);
  });

  it('a bad sort, cursor or fields names its argument', async () => {
    expect((await refusal('find', { collection: 'notes', sort: 'internal' })).content.error?.errors[0].argument).toBe('sort');
    expect((await refusal('find', { collection: 'notes', cursor: 'not-a-cursor' })).content.error?.errors[0].argument).toBe('cursor');
    expect((await refusal('get', { collection: 'notes', id: '0123456789abcdef01234567', fields: ['nope'] })).content.error?.errors[0].argument).toBe('fields');
  });

  it('a bad or unknown id is a 404 naming `id`', async () => {
    for (const id of ['not-an-id', '0123456789abcdef01234567']) {
      const { content } = await refusal('get', { collection: 'notes', id });
      expect(content.error).toMatchObject({ status: 404, code: 'not_found', errors: [{ argument: 'id' }] });
    }
  });

  it('ill-typed and unknown arguments are the SDK\'s validation tool errors naming them', async () => {
    const low = await refusal('find', { collection: 'notes', limit: 0 });
    expect(low.text).toMatch(/limit/);
    const unknown = await refusal('count', { collection: 'notes', page: 2 });
    expect(unknown.text).toMatch(/page/);
  });

  it('a failing access rule is "An unexpected error occurred.", logged, its message not leaked', async () => {
    const { text, content } = await refusal('get', { collection: 'broken', id: '0123456789abcdef01234567' });
    expect(text).toBe('An unexpected error occurred.');
    expect(content.error).toMatchObject({ status: 500, code: 'internal_error', errors: [] });
    expect(JSON.stringify(content)).not.toContain('secret internals');
    expect(t.logs.join('\n')).toContain('secret internals');
  });

  it('a malformed JSON body is the SDK\'s JSON-RPC parse error, not problem+json', async () => {
    const res = await request(t.app).post('/api/mcp').set('Content-Type', 'application/json').set('Accept', 'application/json, text/event-stream').send('{"jsonrpc": ');
    expect(res.headers['content-type']).not.toMatch(/problem\+json/);
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it('GET and DELETE are the SDK\'s 405 (no sessions)', async () => {
    expect((await request(t.app).get('/api/mcp').set('Accept', 'text/event-stream')).status).toBe(405);
    expect((await request(t.app).delete('/api/mcp')).status).toBe(405);
  });

  it('shows a caller who may read nothing no tools, and one who may read the read tools', async () => {
    // Without notes, nothing is public: the default access lets signed-in users in only.
    const bare = await createMcpTestApp(true, {}, [SECRETS]);
    try {
      expect((await (await bare.connect()).listTools()).tools).toEqual([]);
      const user = await registerUser(bare);
      const tools = (await (await bare.connect({ Authorization: `Bearer ${user.accessToken}` })).listTools()).tools;
      expect(tools.map((tool) => tool.name)).toEqual(['describe', 'find', 'get', 'count']);
    } finally {
      await bare.close();
    }
  });
});
