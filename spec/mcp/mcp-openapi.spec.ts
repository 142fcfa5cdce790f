// The /mcp routes in the OpenAPI document: POST documented as the JSON-RPC endpoint it is (a JSON-RPC message
// in, in application/json), its guard and transport refusals (400 parse error, 403 Origin/Host, 406 Accept,
// 415 Content-Type) and GET's and DELETE's 405 as the JSON-RPC errors in application/json they are, the
// router's own (401, 413, a bad Idempotency-Key's 400) as problem+json; real answers validate against it; the
// document still conforms to OpenAPI 3.1, and its /mcp operations lint clean as CI lints.
import request from 'supertest';
import { createResponseValidator, lintWithRedocly, validateOpenApiDocument } from '../openapi/openapi-validators';
import { type McpTestApp, createMcpTestApp } from './mcp-test-app';

jest.setTimeout(60_000);

type Content = Record<string, { schema: unknown }>;
type Operation = { operationId: string; requestBody?: { required: boolean; content: Content }; responses: Record<string, { content?: Content; headers?: Record<string, unknown> }> };
type Doc = Parameters<typeof createResponseValidator>[0] & { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const JSON_RPC_ERROR = { $ref: '#/components/schemas/JsonRpcError' };
const ACCEPT = 'application/json, text/event-stream';
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

let t: McpTestApp;
let doc: Doc;

beforeAll(async () => {
  t = await createMcpTestApp({ write: true });
  const res = await request(t.app).get('/api/docs/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as Doc;
});
afterAll(() => t.close());

const mediaTypes = (op: Operation, status: number) => Object.keys(op.responses[String(status)]?.content ?? {}).sort();

it('documents /mcp, and the document validates and lints clean', () => {
  expect(Object.keys(doc.paths['/mcp']).sort()).toEqual(['delete', 'get', 'post']);
  expect(doc.paths['/mcp'].post.operationId).toBe('mcp.post');
  expect(validateOpenApiDocument(doc)).toEqual({ valid: true });
  // The /mcp operations' own problems (the docs routes are another feature's).
  const problems = lintWithRedocly(doc, { strict: true }).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`);
  expect(problems.filter((p) => p.includes('/~1mcp') || p.includes('JsonRpc'))).toEqual([]);
});

it('takes a JSON-RPC message in application/json', () => {
  const { requestBody } = doc.paths['/mcp'].post;
  expect(requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcMessage' } } } });
  expect(doc.components.schemas).toHaveProperty('JsonRpcMessage');
});

it('documents the SDK refusals as JSON-RPC errors in application/json, the router\'s as problem+json', () => {
  const { post, get, delete: del } = doc.paths['/mcp'];
  for (const status of [403, 406, 415]) {
    expect(mediaTypes(post, status)).toEqual(['application/json']);
    expect(post.responses[String(status)].content?.['application/json'].schema).toEqual(JSON_RPC_ERROR);
  }
  // A parse error is the SDK's; a bad Idempotency-Key is the router's.
  expect(mediaTypes(post, 400)).toEqual(['application/json', 'application/problem+json']);
  for (const op of [get, del]) {
    expect(mediaTypes(op, 405)).toEqual(['application/json']);
    expect(op.responses['405'].headers).toHaveProperty('Allow');
  }
  for (const status of [401, 413]) expect(mediaTypes(post, status)).toEqual(['application/problem+json']);
});

describe('real answers validate against the document', () => {
  const expectValid = (res: request.Response, method: string, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(createResponseValidator(doc).errorsOf('/mcp', method, status, 'application/json', JSON.parse(res.text))).toEqual([]);
  };

  it('403: an Origin not allowed', async () => {
    expectValid(await request(t.app).post('/api/mcp').set('Accept', ACCEPT).set('Origin', 'https://evil.example').send(LIST), 'post', 403);
  });

  it('406: an Accept without the event stream', async () => {
    expectValid(await request(t.app).post('/api/mcp').set('Accept', 'application/json').send(LIST), 'post', 406);
  });

  it('415: a body that is not JSON', async () => {
    expectValid(await request(t.app).post('/api/mcp').set('Accept', ACCEPT).set('Content-Type', 'text/plain').send('hello'), 'post', 415);
  });

  it('400: malformed JSON is the SDK\'s parse error', async () => {
    expectValid(await request(t.app).post('/api/mcp').set('Accept', ACCEPT).set('Content-Type', 'application/json').send('{"jsonrpc":'), 'post', 400);
  });

  it('405: GET and DELETE', async () => {
    expectValid(await request(t.app).get('/api/mcp').set('Accept', ACCEPT), 'get', 405);
    expectValid(await request(t.app).delete('/api/mcp').set('Accept', ACCEPT), 'delete', 405);
  });
});
