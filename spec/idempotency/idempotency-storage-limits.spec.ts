// What an Idempotency-Key may make the router keep, end to end against the database: nothing for a request
// that wrote nothing (an object endpoint declared `sideEffects: false` that only read: its repeat runs
// again), no answer over
// `idempotency.maxAnswerBytes`, and no more than `idempotency.maxKeysPerCaller` keys per caller within the
// TTL (a new key beyond them is a 429 before anything runs).
import request from 'supertest';
import { IDEMPOTENCY_COLLECTION } from '../../lib/idempotency/idempotency-store';
import { type TestApp, type TestConfig, asUser, createTestApp } from '../helpers/create-test-app';

const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };
/** A large answer: 8 of them kept were 16 MiB of the store. */
const LARGE = 'x'.repeat(2 * 1024 * 1024);

/** Calls of the endpoints' handlers, by path. */
const calls: Record<string, number> = {};
const called = (path: string) => {
  calls[path] = (calls[path] ?? 0) + 1;
};

const CONFIG: TestConfig = {
  collections: [{ slug: 'notes', access: everyone, fields: { title: { type: 'text', required: true } } }],
  endpoints: [
    {
      path: '/search',
      method: 'post',
      // Reads through the router, writes nothing: declared, so the router's own trace decides.
      sideEffects: false,
      handler: async ({ req }) => {
        called('/search');
        const found = await req.context!.find('notes', { limit: 1 });
        return { total: found.total, padding: LARGE };
      },
    },
    {
      path: '/note',
      method: 'post',
      sideEffects: false,
      handler: async ({ req, body }) => {
        called('/note');
        return req.context!.create('notes', { title: (body as { title: string }).title });
      },
    },
    {
      path: '/local-note',
      method: 'post',
      sideEffects: false,
      // Writes through the host's api.local without passing the request: still the request's write.
      handler: async ({ body }) => {
        called('/local-note');
        return hostApi!.local.create('notes', { title: (body as { title: string }).title });
      },
    },
    {
      path: '/raw-note',
      method: 'post',
      // Writes past the router's operations, straight through the connection it is given.
      sideEffects: false,
      handler: async ({ db, body }) => {
        called('/raw-note');
        const { insertedId } = await db.collection('notes').insertOne({ title: (body as { title: string }).title });
        return { id: String(insertedId) };
      },
    },
    {
      path: '/mail',
      method: 'post',
      // Acts outside the database (a mail sent), and says nothing: the router assumes it has side effects.
      handler: () => {
        called('/mail');
        return { sent: true };
      },
    },
  ],
};

/** The router the '/local-note' endpoint writes through, as host code holding `api` would. */
let hostApi: TestApp['api'] | undefined;

let counter = 0;
const newKey = () => `limits-${process.pid}-${++counter}-${Date.now()}`;
const keyRows = (t: TestApp) => t.connection.collection(IDEMPOTENCY_COLLECTION).find({}).toArray();
const countNotes = (t: TestApp) => t.connection.collection('notes').countDocuments();

describe('a request that wrote nothing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(CONFIG);
    hostApi = t.api;
  });
  afterEach(async () => {
    expect(t.hostErrors).toEqual([]);
    await t.connection.collection(IDEMPOTENCY_COLLECTION).deleteMany({});
  });
  afterAll(() => t.close());

  it('keeps nothing: 8 anonymous keyed requests with large answers on a read-only endpoint leave the store empty', async () => {
    const keys = Array.from({ length: 8 }, newKey);
    for (const key of keys) {
      const res = await request(t.app).post('/api/search').set('Idempotency-Key', key).send({ q: 'x' });
      expect(res.status).toBe(200);
      expect(res.body.padding).toHaveLength(LARGE.length);
    }
    expect(await keyRows(t)).toEqual([]);
    expect(await t.connection.collection(IDEMPOTENCY_COLLECTION).estimatedDocumentCount()).toBe(0);
  });

  it('runs again on a repeat (a read costs nothing twice), never answered as a replay', async () => {
    const key = newKey();
    const before = calls['/search'] ?? 0;
    await request(t.app).post('/api/search').set('Idempotency-Key', key).send({ q: 'x' }).expect(200);
    const again = await request(t.app).post('/api/search').set('Idempotency-Key', key).send({ q: 'x' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(calls['/search']).toBe(before + 2);
    // And the same key for another request is no reuse: nothing was kept of the first.
    expect((await request(t.app).post('/api/search').set('Idempotency-Key', key).send({ q: 'y' })).status).toBe(200);
  });

  it('is told from one that wrote through req.context: that answer is kept and replayed, and written once', async () => {
    const key = newKey();
    const notes = await countNotes(t);
    const first = await request(t.app).post('/api/note').set('Idempotency-Key', key).send({ title: 'once' });
    expect(first.status).toBe(200);
    const again = await request(t.app).post('/api/note').set('Idempotency-Key', key).send({ title: 'once' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countNotes(t)).toBe(notes + 1);
    expect(await keyRows(t)).toHaveLength(1);
  });

  it('is told from a create over REST: kept and replayed', async () => {
    const key = newKey();
    const first = await request(t.app).post('/api/notes').set('Idempotency-Key', key).send({ title: 'rest' });
    expect(first.status).toBe(201);
    const again = await request(t.app).post('/api/notes').set('Idempotency-Key', key).send({ title: 'rest' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await keyRows(t)).toHaveLength(1);
  });

  it('is told from one that wrote through api.local without passing the request: kept and replayed, written once', async () => {
    const key = newKey();
    const notes = await countNotes(t);
    const first = await request(t.app).post('/api/local-note').set('Idempotency-Key', key).send({ title: 'local' });
    expect(first.status).toBe(200);
    const again = await request(t.app).post('/api/local-note').set('Idempotency-Key', key).send({ title: 'local' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countNotes(t)).toBe(notes + 1);
  });

  it("is told from a handler that uses `db` (writes the router cannot follow): its answer is kept, the write made once", async () => {
    const key = newKey();
    const notes = await countNotes(t);
    const first = await request(t.app).post('/api/raw-note').set('Idempotency-Key', key).send({ title: 'raw' });
    expect(first.status).toBe(200);
    const again = await request(t.app).post('/api/raw-note').set('Idempotency-Key', key).send({ title: 'raw' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countNotes(t)).toBe(notes + 1);
  });

  it('is told from an endpoint that does not declare sideEffects: false (the default assumes side effects): its answer is kept, the handler runs once', async () => {
    const key = newKey();
    const before = calls['/mail'] ?? 0;
    await request(t.app).post('/api/mail').set('Idempotency-Key', key).send({ to: 'a@example.com' }).expect(200);
    const again = await request(t.app).post('/api/mail').set('Idempotency-Key', key).send({ to: 'a@example.com' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(calls['/mail']).toBe(before + 1);
  });
});

describe('idempotency.maxAnswerBytes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ ...CONFIG, idempotency: { maxAnswerBytes: 1024 } });
  });
  afterEach(() => expect(t.hostErrors).toEqual([]));
  afterAll(() => t.close());

  it('keeps an answer up to the cap, and only the key of a larger one: its repeat is a 422, never a second write', async () => {
    const small = newKey();
    await request(t.app).post('/api/note').set('Idempotency-Key', small).send({ title: 'short' }).expect(200);
    expect((await request(t.app).post('/api/note').set('Idempotency-Key', small).send({ title: 'short' })).headers['idempotent-replayed']).toBe('true');

    const large = newKey();
    const title = 'y'.repeat(2000);
    const notes = await countNotes(t);
    const first = await request(t.app).post('/api/note').set('Idempotency-Key', large).send({ title });
    expect(first.status).toBe(200);
    expect(first.body.title).toBe(title);
    const rows = await keyRows(t);
    expect(rows).toHaveLength(2);
    expect(rows.filter((row) => row.answer === undefined)).toHaveLength(1);
    const again = await request(t.app).post('/api/note').set('Idempotency-Key', large).send({ title });
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ code: 'idempotency_key_reused', detail: expect.stringMatching(/not kept/) });
    expect(await countNotes(t)).toBe(notes + 1);
  });
});

describe('idempotency.maxKeysPerCaller', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ ...CONFIG, idempotency: { maxKeysPerCaller: 2 } });
  });
  afterEach(() => expect(t.hostErrors).toEqual([]));
  afterAll(() => t.close());

  it('refuses a new key beyond the cap with a 429 before anything runs; kept keys still replay; others and unkeyed requests are not held', async () => {
    const [one, two, three] = [newKey(), newKey(), newKey()];
    await request(t.app).post('/api/notes').set('Idempotency-Key', one).send({ title: 'one' }).expect(201);
    await request(t.app).post('/api/notes').set('Idempotency-Key', two).send({ title: 'two' }).expect(201);
    const notes = await countNotes(t);

    const refused = await request(t.app).post('/api/notes').set('Idempotency-Key', three).send({ title: 'three' });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'idempotency_quota_exceeded' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    expect(await countNotes(t)).toBe(notes);
    expect(await keyRows(t)).toHaveLength(2);

    // A kept key is still a replay, and a request without a key still runs.
    expect((await request(t.app).post('/api/notes').set('Idempotency-Key', one).send({ title: 'one' })).headers['idempotent-replayed']).toBe('true');
    await request(t.app).post('/api/notes').send({ title: 'unkeyed' }).expect(201);
    // Whatever the route: whether a request will write is not known before it runs.
    expect((await request(t.app).post('/api/search').set('Idempotency-Key', three).send({ q: 'x' })).status).toBe(429);
    // Another caller has keys of its own.
    const other = await request(t.app).post('/api/notes').set(...asUser({ id: '0000000000000000000000a1' })).set('Idempotency-Key', three).send({ title: 'three' });
    expect(other.status).toBe(201);
    expect(await countNotes(t)).toBe(notes + 2);
  });
});
