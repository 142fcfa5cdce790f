// The SDK's guards against DNS rebinding: a browser Origin must be trusted (security.trustedOrigins, or
// mcp.allowedOrigins), a request without one passes; with mcp.allowedHosts the Host header must be one of
// them. Each refusal is the SDK's 403 JSON-RPC error. The rate limit counts MCP requests per caller as REST's,
// and the router's body limit bounds their bodies.
import request from 'supertest';
import { type McpTestApp, createMcpTestApp } from './mcp-test-app';

jest.setTimeout(30_000);

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const ACCEPT = 'application/json, text/event-stream';

function post(t: McpTestApp, headers: Record<string, string> = {}) {
  const req = request(t.app).post('/api/mcp').set('Accept', ACCEPT).set('MCP-Protocol-Version', '2025-06-18');
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(LIST);
}

describe('Origin', () => {
  let t: McpTestApp;
  beforeAll(async () => {
    t = await createMcpTestApp(true, { extra: { security: { trustedOrigins: ['https://admin.example.com'] } } });
  });
  afterAll(() => t.close());

  it('passes a request without Origin (a desktop agent) and a trusted one', async () => {
    const res = await post(t);
    expect(res.status).toBe(200);
    // A JSON answer, not an event stream.
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { tools: expect.any(Array) } });
    expect((await post(t, { Origin: 'https://admin.example.com' })).status).toBe(200);
  });

  it('refuses another origin with the SDK\'s 403', async () => {
    const res = await post(t, { Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).not.toMatch(/problem\+json/);
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', error: expect.any(Object) });
  });
});

describe('mcp.allowedOrigins and mcp.allowedHosts', () => {
  let t: McpTestApp;
  beforeAll(async () => {
    t = await createMcpTestApp({ allowedOrigins: ['localhost'], allowedHosts: ['localhost'] });
  });
  afterAll(() => t.close());

  it('takes the listed hostnames only', async () => {
    expect((await post(t, { Host: 'localhost:3000', Origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await post(t, { Host: 'localhost:3000', Origin: 'https://admin.example.com' })).status).toBe(403);
    const rebound = await post(t, { Host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.text)).toMatchObject({ jsonrpc: '2.0', error: expect.any(Object) });
  });

  it('refuses the SDK client connecting by a host not listed (127.0.0.1)', async () => {
    await expect(t.connect()).rejects.toThrow(/403|Forbidden|Invalid Host/i);
  });
});

describe('an IPv6 host written without brackets', () => {
  let t: McpTestApp;
  beforeAll(async () => {
    t = await createMcpTestApp({ allowedOrigins: ['::1'], allowedHosts: ['::1'] });
  });
  afterAll(() => t.close());

  it('matches the bracketed Host and Origin a client sends', async () => {
    expect((await post(t, { Host: '[::1]:3000' })).status).toBe(200);
    expect((await post(t, { Host: '[::1]:3000', Origin: 'http://[::1]:5173' })).status).toBe(200);
    expect((await post(t, { Host: 'localhost:3000' })).status).toBe(403);
  });
});

describe('rate limit', () => {
  let t: McpTestApp;
  beforeAll(async () => {
    t = await createMcpTestApp(true, { extra: { security: { rateLimit: { max: 3, windowMs: 60_000, keyBy: (req) => String(req.headers['x-agent']) } } } });
  });
  afterAll(() => t.close());

  it('counts MCP requests per caller as REST does: the one over the limit is a 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(t, { 'X-Agent': 'a' })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await post(t, { 'X-Agent': 'a' });
    expect(limited.headers['content-type']).toMatch(/problem\+json/);
    expect(limited.headers['retry-after']).toBeDefined();
    // Another caller has its own count.
    expect((await post(t, { 'X-Agent': 'b' })).status).toBe(200);
  });
});

describe('body limit', () => {
  let t: McpTestApp;
  beforeAll(async () => {
    t = await createMcpTestApp(true, { extra: { core: { api: { bodyLimit: '1kb' } } } });
  });
  afterAll(() => t.close());

  it('a body over the router\'s bodyLimit is REST\'s 413', async () => {
    const res = await request(t.app)
      .post('/api/mcp')
      .set('Accept', ACCEPT)
      .send({ ...LIST, params: { padding: 'x'.repeat(2048) } });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });
});
