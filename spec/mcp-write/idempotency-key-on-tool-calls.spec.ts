// An Idempotency-Key on the HTTP request of a write tool's call works as on REST: a retry of the same call
// gets the first answer again and writes nothing; the key with another call is a 422; a call that wrote
// nothing (a refused write) keeps nothing, so its retry runs again.
import request from 'supertest';
import { type McpWriteApp, createMcpWriteApp } from './mcp-write-app';

jest.setTimeout(30_000);

let t: McpWriteApp;
beforeAll(async () => {
  t = await createMcpWriteApp();
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const EDITOR = JSON.stringify({ id: 'e1', role: 'editor' });

/** A tools/call's HTTP answer and its JSON-RPC message (answered as JSON, or as one server-sent event). */
interface RpcAnswer {
  status: number;
  headers: Record<string, string>;
  body: { result: { isError?: boolean; structuredContent: { record: { id: string } } } };
}

/** One JSON-RPC tools/call, posted as an agent's transport posts it (stateless: no session). */
async function callOver(key: string, name: string, args: Record<string, unknown>, id = 1): Promise<RpcAnswer> {
  const res = await post(key, name, args, id);
  const sse = /^data: (.*)$/m.exec(res.text);
  return { status: res.status, headers: res.headers as Record<string, string>, body: sse ? JSON.parse(sse[1]) : res.body };
}

function post(key: string, name: string, args: Record<string, unknown>, id: number) {
  return request(t.app)
    .post('/api/mcp')
    .set('X-Test-User', EDITOR)
    .set('Accept', 'application/json, text/event-stream')
    .set('Content-Type', 'application/json')
    .set('Idempotency-Key', key)
    .send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

it('replays a repeated call with its key and writes nothing again', async () => {
  const first = await callOver('create-once', 'create', { collection: 'articles', data: { title: 'Once' } });
  expect(first.status).toBe(200);
  expect(first.body.result.isError).toBeFalsy();
  const { id } = first.body.result.structuredContent.record;

  const again = await callOver('create-once', 'create', { collection: 'articles', data: { title: 'Once' } });
  expect(again.status).toBe(200);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toEqual(first.body);
  expect(await t.connection.collection('articles').countDocuments({ title: 'Once' })).toBe(1);
  expect(again.body.result.structuredContent.record.id).toBe(id);
});

it('refuses the key with another call (422), before anything runs', async () => {
  expect((await callOver('reused', 'create', { collection: 'articles', data: { title: 'First use' } })).status).toBe(200);
  const other = await callOver('reused', 'create', { collection: 'articles', data: { title: 'Second use' } });
  expect(other.status).toBe(422);
  expect(await t.connection.collection('articles').countDocuments({ title: 'Second use' })).toBe(0);
});

it('keeps nothing of a call that wrote nothing: its retry runs again', async () => {
  const refused = await callOver('refused-first', 'create', { collection: 'articles', data: { body: 'no title' } });
  expect(refused.status).toBe(200);
  expect(refused.body.result.isError).toBe(true);
  const retried = await callOver('refused-first', 'create', { collection: 'articles', data: { body: 'no title' } });
  expect(retried.headers['idempotent-replayed']).toBeUndefined();
  expect(retried.body.result.isError).toBe(true);
});
