// Both protocol eras are served, statelessly, with JSON answers: the 2025 handshake most agents speak today
// and the 2026-07-28 per-request envelopes; the same caller sees the same tools and answers in both.
import { registerAdmin } from '../auth/auth-test-app';
import { type McpTestApp, createMcpTestApp, structured } from './mcp-test-app';

jest.setTimeout(30_000);

let t: McpTestApp;

beforeAll(async () => {
  t = await createMcpTestApp();
});
afterAll(() => t.close());

describe('protocol eras', () => {
  it.each(['legacy', 'modern'] as const)('the %s era lists the caller\'s tools and answers its calls', async (era) => {
    const admin = await registerAdmin(t);
    const client = await t.connect({ Authorization: `Bearer ${admin.accessToken}` }, era);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['describe', 'find', 'get', 'count']);
    expect(structured(await client.callTool({ name: 'count', arguments: { collection: 'secrets' } }))).toEqual({ total: 0 });
    const refused = await client.callTool({ name: 'find', arguments: { collection: 'nope' } });
    expect(refused.isError).toBe(true);
  });

  it('the modern era sees only the tools its caller may use', async () => {
    const anonymous = await t.connect({}, 'modern');
    const schema = structured(await anonymous.callTool({ name: 'describe', arguments: {} }));
    expect((schema.collections as Array<{ slug: string }>).map((c) => c.slug)).toEqual(['notes']);
  });
});
