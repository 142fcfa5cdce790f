// The answers an Idempotency-Key keeps and replays, end to end: object endpoints that answer
// through `res` themselves (the Express style docs/endpoints.md allows) must answer a keyed request as
// they answer any other, and its replay must be a well-formed answer of the same kind.
import request from 'supertest';
import { IDEMPOTENCY_COLLECTION } from '../../lib/idempotency/idempotency-store';
import { type TestApp, type TestConfig, createTestApp } from '../helpers/create-test-app';

/** Calls of the endpoints' handlers, by path. */
const calls: Record<string, number> = {};
const called = (path: string) => {
  calls[path] = (calls[path] ?? 0) + 1;
};

const CONFIG: TestConfig = {
  endpoints: [
    {
      path: '/answered',
      method: 'post',
      sideEffects: true,
      handler: ({ res }) => {
        called('/answered');
        res.status(201).json({ ok: true });
      },
    },
    {
      path: '/returned',
      method: 'post',
      sideEffects: true,
      // Returns what res.json returns (the response): "nothing more is sent, whatever it returned".
      handler: ({ res }) => {
        called('/returned');
        return res.json({ ok: true });
      },
    },
    {
      path: '/redirected',
      method: 'post',
      sideEffects: true,
      handler: ({ res }) => {
        called('/redirected');
        res.redirect(303, '/api/somewhere');
      },
    },
    {
      path: '/csv',
      method: 'patch',
      sideEffects: true,
      handler: ({ res }) => {
        called('/csv');
        res.type('text/csv').send('a,b\n1,2\n');
      },
    },
    {
      path: '/nothing',
      method: 'post',
      sideEffects: true,
      handler: () => {
        called('/nothing');
      },
    },
  ],
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(CONFIG);
});
afterEach(async () => {
  expect(t.hostErrors).toEqual([]);
  await t.connection.collection(IDEMPOTENCY_COLLECTION).deleteMany({});
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const newKey = () => `attack-${process.pid}-${++counter}-${Date.now()}`;
/** supertest rejects on a cut-off answer: the failure is the answer here. */
const send = (method: 'post' | 'patch', path: string, key?: string) => {
  const req = request(t.app)[method](`/api${path}`).redirects(0).ok(() => true);
  return (key === undefined ? req : req.set('Idempotency-Key', key)).then(
    (res) => ({ status: res.status, text: res.text, headers: res.headers }),
    (error: Error) => ({ status: 0, text: error.message, headers: {} as Record<string, string> }),
  );
};

describe('an object endpoint answering through res', () => {
  it.each([
    ['post', '/answered', 201],
    ['post', '/returned', 200],
    ['post', '/redirected', 303],
    ['patch', '/csv', 200],
  ] as const)('%s %s: a keyed request gets the answer an unkeyed one gets, and its repeat replays it', async (method, path, status) => {
    const plain = await send(method, path);
    expect(plain.status).toBe(status);
    const before = calls[path];
    const key = newKey();
    const first = await send(method, path, key);
    expect(first.status).toBe(status);
    expect(first.text).toBe(plain.text);
    expect(first.headers['content-type']).toBe(plain.headers['content-type']);
    expect(first.headers.location).toBe(plain.headers.location);
    const again = await send(method, path, key);
    expect(again.status).toBe(status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(plain.text);
    expect(calls[path]).toBe(before + 1);
  });
});

describe('an endpoint answering nothing', () => {
  it('replays its 204 as a 204: no body and no Content-Length (RFC 9110 forbids it on a 204)', async () => {
    const key = newKey();
    const before = calls['/nothing'] ?? 0;
    const first = await send('post', '/nothing', key);
    expect(first.status).toBe(204);
    expect(first.headers['content-length']).toBeUndefined();
    const again = await send('post', '/nothing', key);
    expect(again.status).toBe(204);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-length']).toBeUndefined();
    expect(again.text).toBe('');
    expect(calls['/nothing']).toBe(before + 1);
  });
});
