// Object endpoints whose handler answers through `res` itself (a redirect, a file download) or answers
// nothing, called with an Idempotency-Key: the first answer is the one the handler wrote, exactly as
// without a key, and the repeat replays that same answer.
import request from 'supertest';
import { type TestApp, type TestConfig, createTestApp } from '../helpers/create-test-app';

jest.setTimeout(30_000);

/** Calls of the endpoints' handlers, by path. */
const calls: Record<string, number> = {};
const called = (path: string) => {
  calls[path] = (calls[path] ?? 0) + 1;
};

const CONFIG: TestConfig = {
  collections: [{ slug: 'notes', access: { read: () => true }, fields: { title: { type: 'text' } } }],
  endpoints: [
    {
      path: '/go',
      method: 'post',
      sideEffects: true,
      handler: ({ res }) => {
        called('go');
        res.redirect(303, '/api/notes');
      },
    },
    {
      path: '/report',
      method: 'post',
      sideEffects: true,
      handler: async ({ res }) => {
        called('report');
        await new Promise((resolve) => setImmediate(resolve));
        res.attachment('report.csv').type('text/csv').send('a,b\n1,2\n');
      },
    },
    {
      path: '/ping',
      method: 'post',
      sideEffects: true,
      handler: () => {
        called('ping');
      },
    },
  ],
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(CONFIG);
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const newKey = () => `newcomer-${process.pid}-${++counter}-${Date.now()}`;

describe('an object endpoint answering through res, with an Idempotency-Key', () => {
  it('a redirect is answered as written (303 and Location) the first time, and replayed', async () => {
    const key = newKey();
    const first = await request(t.app).post('/api/go').set('Idempotency-Key', key).send({});
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/api/notes');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await request(t.app).post('/api/go').set('Idempotency-Key', key).send({});
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('/api/notes');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(calls.go).toBe(1);
  });

  it('a download sent after an await is the same answer as without a key, and its repeat replays it', async () => {
    const plain = await request(t.app).post('/api/report').send({});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-disposition']).toMatch(/^attachment; filename=/);
    const key = newKey();
    const first = await request(t.app).post('/api/report').set('Idempotency-Key', key).send({});
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe(plain.headers['content-type']);
    expect(first.headers['content-disposition']).toBe(plain.headers['content-disposition']);
    expect(first.text).toBe('a,b\n1,2\n');
    const again = await request(t.app).post('/api/report').set('Idempotency-Key', key).send({});
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-disposition']).toBe(first.headers['content-disposition']);
    expect(again.text).toBe(first.text);
    expect(calls.report).toBe(2);
  });

  it('a 204 is replayed as a 204, without the Content-Length a 204 must not carry', async () => {
    const key = newKey();
    const first = await request(t.app).post('/api/ping').set('Idempotency-Key', key).send({});
    expect(first.status).toBe(204);
    expect(first.headers['content-length']).toBeUndefined();
    const again = await request(t.app).post('/api/ping').set('Idempotency-Key', key).send({});
    expect(again.status).toBe(204);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-length']).toBeUndefined();
    expect(calls.ping).toBe(1);
  });
});
