// Idempotency-Key end to end against the real database: a repeat replays the stored answer (status, body,
// headers, Idempotent-Replayed) and writes nothing, for single and batch creates, uploads and object
// endpoints; a changed request is a 422, a repeat while the first runs a 409, a failed first request is
// not kept; keys are scoped to the caller (user, or address as the rate limiter sees it), expire, are
// taken over when their lease ends, hold across two routers on one database, and survive a race.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { ContentConfig } from '../../lib';
import { IDEMPOTENCY_COLLECTION } from '../../lib/idempotency/idempotency-store';
import { type TestApp, type TestConfig, asUser, createTestApp } from '../helpers/create-test-app';
import { createTestClock } from '../helpers/test-clock';
import { until } from '../helpers/eventually';
import { countStored, pngBytes } from '../uploads/upload-helpers';

const PROBLEM = /application\/problem\+json/;
const alice = asUser({ id: '000000000000000000000001' });
const bob = asUser({ id: '000000000000000000000002' });

jest.setTimeout(60_000);

/** A gate the posts' beforeChange hook waits at while it is closed: holds a create in flight. */
let gate: { entered: () => void; opened: Promise<void> } | undefined;
function closeGate(): { entered: Promise<void>; open: () => void } {
  let entered!: () => void;
  let open!: () => void;
  const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
  gate = { entered, opened: new Promise<void>((resolve) => (open = resolve)) };
  return {
    entered: enteredPromise,
    open: () => {
      gate = undefined;
      open();
    },
  };
}

/** Calls of the object endpoints' handlers, by path. */
const calls: Record<string, number> = {};

const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };
const CONFIG: TestConfig = {
  collections: [
    {
      slug: 'posts',
      access: everyone,
      fields: { title: { type: 'text', required: true }, n: { type: 'number' } },
      hooks: {
        beforeChange: [
          async ({ data }) => {
            const held = gate;
            if (held && data.title !== 'slow after') {
              held.entered();
              await held.opened;
            }
            return data;
          },
        ],
        afterChange: [
          async ({ doc }) => {
            const held = gate;
            if (held && doc.title === 'slow after') {
              held.entered();
              await held.opened;
            }
          },
        ],
      },
    },
    { slug: 'notes', access: everyone, fields: { title: { type: 'text', required: true } } },
  ],
  uploads: { maxFileSize: 64 * 1024 },
  endpoints: [
    {
      path: '/contact',
      method: 'post',
      sideEffects: true,
      schema: { name: 'ContactForm', body: { properties: { name: { type: 'string' } }, required: ['name'] } },
      handler: ({ body, res }) => {
        calls.contact = (calls.contact ?? 0) + 1;
        res.status(201);
        return { received: (body as { name: string }).name, call: calls.contact };
      },
    },
    {
      path: '/contact',
      method: 'patch',
      sideEffects: true,
      handler: () => {
        calls.patch = (calls.patch ?? 0) + 1;
        return { call: calls.patch };
      },
    },
    {
      path: '/export',
      method: 'post',
      sideEffects: true,
      handler: () => {
        calls.export = (calls.export ?? 0) + 1;
        // One byte more than a kept answer holds by default (idempotency.maxAnswerBytes), once JSON-quoted.
        return 'x'.repeat(1024 * 1024 - 1);
      },
    },
    {
      path: '/attach',
      method: 'post',
      sideEffects: true,
      schema: { name: 'AttachForm', body: { properties: { note: { type: 'string' }, doc: { type: 'file' } }, required: ['doc'] } },
      handler: ({ body }) => {
        calls.attach = (calls.attach ?? 0) + 1;
        const { note, doc } = body as { note?: string; doc: { size: number; originalName: string } };
        return { note: note ?? null, size: doc.size, name: doc.originalName, call: calls.attach };
      },
    },
  ],
};

const apps: TestApp[] = [];
let t: TestApp;

async function app(config: TestConfig = CONFIG, options: Parameters<typeof createTestApp>[1] = {}): Promise<TestApp> {
  const created = await createTestApp(config, options);
  apps.push(created);
  return created;
}

beforeAll(async () => {
  t = await app();
});
afterEach(async () => {
  gate = undefined;
  for (const each of apps) expect(each.hostErrors).toEqual([]);
  for (const each of apps.splice(1)) await each.close();
  await Promise.all(['posts', 'notes', IDEMPOTENCY_COLLECTION].map((name) => t.connection.collection(name).deleteMany({})));
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
/** A key no other test uses. */
const newKey = () => `key-${process.pid}-${++counter}-${Date.now()}`;
const count = (slug: string, on: TestApp = t) => on.connection.collection(slug).countDocuments();
const keyRows = (on: TestApp = t) => on.connection.collection(IDEMPOTENCY_COLLECTION).find().toArray();
const create = (key: string | undefined, body: object, on: TestApp = t) => {
  const req = request(on.app).post('/api/posts');
  return key === undefined ? req.send(body) : req.set('Idempotency-Key', key).send(body);
};

function expectProblem(res: request.Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body).toMatchObject({ status, code, type: `urn:content-router:problem:${code}` });
}

/** Resolves once `check` is true (a row written, a request in flight), or fails after `ms`. */
const BOUNDARY = 'spec-boundary';

/**
 * An upload of a.png with `key` by alice, sent by hand to the app listening on a free port, its first 20
 * bytes written once the part's headers are: the test goes on from there (`rest` ends the form). The server
 * closes when the test's work is done.
 */
async function startedUpload<T>(key: string, bytes: Buffer, work: (sending: http.ClientRequest, rest: () => void) => Promise<T>): Promise<T> {
  const server = t.app.listen(0, '127.0.0.1');
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const sending = http.request({
      host: '127.0.0.1',
      port,
      path: '/api/upload',
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Transfer-Encoding': 'chunked', 'Idempotency-Key': key, [alice[0]]: alice[1] },
    });
    sending.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
    sending.write(bytes.subarray(0, 20));
    return await work(sending, () => sending.end(Buffer.concat([bytes.subarray(20), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)])));
  } finally {
    server.close();
  }
}

describe('a repeat with the same key', () => {
  it('replays a create: same status, body and headers, Idempotent-Replayed, and one record', async () => {
    const key = newKey();
    const first = await create(key, { title: 'once', n: 1 });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await create(key, { title: 'once', n: 1 });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.text).toBe(first.text);
    for (const header of ['location', 'content-type', 'etag']) {
      expect(first.headers[header]).toBeDefined();
      expect(again.headers[header]).toBe(first.headers[header]);
    }
    expect(first.headers.location).toBe(`/api/posts/${first.body.id}`);
    expect(await count('posts')).toBe(1);
    // The record was not written again either: a third repeat is the same answer.
    expect((await create(key, { title: 'once', n: 1 })).body).toEqual(first.body);
    expect(await count('posts')).toBe(1);
  });

  it('replays a batch create with one batch written', async () => {
    const key = newKey();
    const body = { data: [{ title: 'a' }, { title: 'b' }] };
    const first = await create(key, body);
    expect(first.status).toBe(201);
    expect(first.body.data).toHaveLength(2);
    const again = await create(key, body);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await count('posts')).toBe(2);
  });

  it('keeps a hash of caller and key, never the key, with the answer until the TTL', async () => {
    const key = newKey();
    await create(key, { title: 'stored' }).expect(201);
    const rows = await keyRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]._id).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(rows[0]).toMatchObject({ state: 'done', fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const ttl = (rows[0].expiresAt as Date).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(23.9 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3_600_000);
  });

  it('costs nothing without the header: two requests write twice and nothing is stored', async () => {
    await create(undefined, { title: 'x' }).expect(201);
    await create(undefined, { title: 'x' }).expect(201);
    expect(await count('posts')).toBe(2);
    expect(await keyRows()).toEqual([]);
  });
});

describe('the same key for a different request', () => {
  it('is a 422 idempotency_key_reused for another body, query, path or method, and writes nothing', async () => {
    const key = newKey();
    await create(key, { title: 'first' }).expect(201);
    expectProblem(await create(key, { title: 'second' }), 422, 'idempotency_key_reused');
    expectProblem(await request(t.app).post('/api/posts?draft=1').set('Idempotency-Key', key).send({ title: 'first' }), 422, 'idempotency_key_reused');
    expectProblem(await request(t.app).post('/api/notes').set('Idempotency-Key', key).send({ title: 'first' }), 422, 'idempotency_key_reused');
    expect(await count('posts')).toBe(1);
    expect(await count('notes')).toBe(0);

    // The same members in another order are another body: a client retrying sends the same bytes again.
    const ordered = newKey();
    await create(ordered, { title: 'o', n: 1 }).expect(201);
    expectProblem(await create(ordered, { n: 1, title: 'o' }), 422, 'idempotency_key_reused');

    const other = newKey();
    await request(t.app).post('/api/contact').set('Idempotency-Key', other).send({ name: 'Ann' }).expect(201);
    expectProblem(await request(t.app).patch('/api/contact').set('Idempotency-Key', other).send({ name: 'Ann' }), 422, 'idempotency_key_reused');
  });
});

describe('a repeat while the first request runs', () => {
  it('is a 409 idempotency_key_in_flight with Retry-After; once the first is done, the repeat replays it', async () => {
    const key = newKey();
    const held = closeGate();
    const first = create(key, { title: 'slow' }).then((res) => res);
    await held.entered;
    const during = await create(key, { title: 'slow' });
    expectProblem(during, 409, 'idempotency_key_in_flight');
    expect(Number(during.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A different request with the key is refused as such at once.
    expectProblem(await create(key, { title: 'other' }), 422, 'idempotency_key_reused');
    held.open();
    const done = await first;
    expect(done.status).toBe(201);
    const after = await create(key, { title: 'slow' });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toEqual(done.body);
    expect(await count('posts')).toBe(1);
  });

  it('six concurrent requests with one key, on two routers, create exactly one record; the others are 409s or replays', async () => {
    const other = await app(CONFIG, { connection: t.connection });
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(key, { title: 'race' }, i % 2 ? other : t)));
    const created = answers.filter((res) => res.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const res of answers) expect([201, 409]).toContain(res.status);
    for (const res of answers.filter((each) => each.status === 409)) expect(res.body.code).toBe('idempotency_key_in_flight');
    expect(created.filter((res) => res.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    expect(await count('posts')).toBe(1);
    const later = await create(key, { title: 'race' });
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.body.id).toBe(created[0].body.id);
  });
});

describe('a first request that fails', () => {
  it('is not kept: the corrected request with the same key runs', async () => {
    const key = newKey();
    expectProblem(await create(key, { n: 1 }), 400, 'validation_error');
    expectProblem(await create(key, { title: 'ok', extra: true }), 400, 'validation_error');
    expect(await keyRows()).toEqual([]);
    const fixed = await create(key, { title: 'ok' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('posts')).toBe(1);
    // And it is the answer the key keeps from now on.
    expect((await create(key, { title: 'ok' })).headers['idempotent-replayed']).toBe('true');
  });

  // Only the held request meets the deadline: it waits at the gate (not on a clock) until the deadline has
  // answered it. The deadline leaves a slow database server time for the key's claim and the write before
  // the gate, and the retries go through `t` (the same database, the default 30 s deadline).
  const HELD_DEADLINE_MS = 1500;

  it('is not kept when the request deadline answered it before its write: a retry with the key runs', async () => {
    const slow = await app(CONFIG, { connection: t.connection, requestTimeoutMS: HELD_DEADLINE_MS });
    const key = newKey();
    const held = closeGate();
    const answer = create(key, { title: 'late' }, slow).then((res) => res);
    // The route has claimed its key and waits in beforeChange, before its write.
    await held.entered;
    const first = await answer;
    expectProblem(first, 503, 'database_timeout');
    // Nothing of the stored answer's headers leaks into the deadline's answer.
    expect(first.headers.location).toBeUndefined();
    held.open();
    // The route, answered already, writes nothing and gives its key up.
    await until(async () => (await keyRows()).length === 0);
    const retry = await create(key, { title: 'late' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect((await create(key, { title: 'late' })).body).toEqual(retry.body);
    expect(await count('posts')).toBe(1);
  });

  it('holds its key past the deadline\'s 503 while a route that has written still runs, then keeps it: the retry never writes twice', async () => {
    const slow = await app(CONFIG, { connection: t.connection, requestTimeoutMS: HELD_DEADLINE_MS });
    const key = newKey();
    const held = closeGate();
    // Written, then held in afterChange past the deadline.
    const answer = create(key, { title: 'slow after' }, slow).then((res) => res);
    await held.entered;
    expectProblem(await answer, 503, 'database_timeout');
    expect(await count('posts')).toBe(1);
    // The route still runs: a retry is told to wait, and runs nothing.
    expectProblem(await create(key, { title: 'slow after' }), 409, 'idempotency_key_in_flight');
    held.open();
    await until(async () => (await keyRows()).some((row) => row.state === 'done'));
    // Done, but its answer came too late to keep: the retry is told so, and nothing runs again.
    const retry = await create(key, { title: 'slow after' });
    expectProblem(retry, 422, 'idempotency_key_reused');
    expect(retry.body.detail).toMatch(/completed/);
    expect(await count('posts')).toBe(1);
  });

  it('is not kept when the client went away mid-upload: the same upload with the key runs', async () => {
    const key = newKey();
    const { files } = await countStored(t.connection);
    await startedUpload(key, pngBytes(), async (cut) => {
      cut.on('error', () => undefined);
      await until(async () => (await keyRows()).length === 1);
      cut.destroy();
      await until(async () => (await keyRows()).length === 0);
    });
    const retry = await request(t.app).post('/api/upload').set(...alice).set('Idempotency-Key', key).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' });
    expect(retry.status).toBe(201);
    expect((await countStored(t.connection)).files).toBe(files + 1);
  });
});

describe('a client that leaves before its answer', () => {
  it('does not undo a create that completes: its answer is kept, and the retry gets it', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const key = newKey();
      const { port } = server.address() as AddressInfo;
      const held = closeGate();
      const body = JSON.stringify({ title: 'left' });
      const gone = http.request({
        host: '127.0.0.1',
        port,
        path: '/api/posts',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length), 'Idempotency-Key': key },
      });
      gone.on('error', () => undefined);
      gone.end(body);
      await held.entered;
      // The client gives up waiting, as a timing-out client does, while the create is still running.
      gone.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      held.open();
      await until(async () => (await keyRows()).some((row) => row.state === 'done'));
      const retry = await create(key, { title: 'left' });
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(await count('posts')).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe('whose key it is', () => {
  it('keys of different users never collide: each runs, each repeat replays its own', async () => {
    const key = newKey();
    const a = await create(key, { title: 'alice' }).set(...alice);
    const b = await create(key, { title: 'bob' }).set(...bob);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('posts')).toBe(2);
    const again = await create(key, { title: 'alice' }).set(...alice);
    expect(again.body).toEqual(a.body);
    // The anonymous caller at the same address is someone else again.
    expect((await create(key, { title: 'anon' })).status).toBe(201);
    expect(await count('posts')).toBe(3);
  });

  it('anonymous callers are scoped by their address as Express sees it (trust proxy)', async () => {
    const proxied = await app(CONFIG, { connection: t.connection });
    proxied.app.set('trust proxy', true);
    const key = newKey();
    const from = (ip: string, title: string) => create(key, { title }, proxied).set('X-Forwarded-For', ip);
    const one = await from('203.0.113.1', 'one');
    const two = await from('203.0.113.2', 'two');
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(two.headers['idempotent-replayed']).toBeUndefined();
    const again = await from('203.0.113.1', 'one');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(one.body);
    expect(await count('posts')).toBe(2);
  });

  it("anonymous callers are scoped by the rate limiter's keyBy when the host set one", async () => {
    const keyed = await app({ ...CONFIG, security: { rateLimit: { max: 1000, keyBy: (req) => req.get('x-client') ?? 'none' } } }, { connection: t.connection });
    const key = newKey();
    const as = (client: string) => create(key, { title: 'same' }, keyed).set('X-Client', client);
    expect((await as('a')).status).toBe(201);
    expect((await as('b')).headers['idempotent-replayed']).toBeUndefined();
    expect((await as('a')).headers['idempotent-replayed']).toBe('true');
    expect(await count('posts')).toBe(2);
  });
});

describe('where keys live', () => {
  it('an answer older than idempotency.ttl is gone: the repeat runs as a new request', async () => {
    const clock = createTestClock();
    const short = await app({ ...CONFIG, idempotency: { ttl: '1h' }, clock }, { connection: t.connection });
    const key = newKey();
    const first = await create(key, { title: 'ttl' }, short).expect(201);
    clock.advance(59 * 60_000);
    expect((await create(key, { title: 'ttl' }, short)).headers['idempotent-replayed']).toBe('true');
    // The TTL is the router's clock's: the row is still there (the TTL monitor follows the server's own), expired.
    clock.advance(2 * 60_000);
    const later = await create(key, { title: 'changed' }, short);
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(await count('posts')).toBe(2);
  });

  it('a claim whose lease ended (its instance died) is taken over by the next request with the key', async () => {
    const key = newKey();
    const held = closeGate();
    const stuck = create(key, { title: 'stuck' }).then((res) => res);
    await held.entered;
    // As if the instance running it had died: its lease runs out without renewal.
    await t.connection.collection(IDEMPOTENCY_COLLECTION).updateMany({}, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    gate = undefined;
    const taken = await create(key, { title: 'stuck' });
    expect(taken.status).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    held.open();
    expect((await stuck).status).toBe(201);
    // The key is the request's that took it over: the late first one does not overwrite its answer.
    const again = await create(key, { title: 'stuck' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(taken.body.id);
  });

  it('holds across two routers on one database', async () => {
    const other = await app(CONFIG, { connection: t.connection });
    const key = newKey();
    const first = await create(key, { title: 'shared' });
    const there = await create(key, { title: 'shared' }, other);
    expect(there.headers['idempotent-replayed']).toBe('true');
    expect(there.body).toEqual(first.body);
    expectProblem(await create(key, { title: 'changed' }, other), 422, 'idempotency_key_reused');
    // And a request running on one is in flight for the other.
    const running = newKey();
    const held = closeGate();
    const slow = create(running, { title: 'slow' }).then((res) => res);
    await held.entered;
    expectProblem(await create(running, { title: 'slow' }, other), 409, 'idempotency_key_in_flight');
    held.open();
    expect((await slow).status).toBe(201);
    expect(await count('posts')).toBe(2);
  });
});

describe('a malformed Idempotency-Key', () => {
  /** Sends raw headers (supertest cannot repeat one), answering status and parsed body. */
  function raw(headers: [string, string][]): Promise<{ status: number; body: { code?: string; errors?: unknown[]; detail?: string } }> {
    const server = t.app.listen(0, '127.0.0.1');
    return new Promise((resolve, reject) => {
      server.once('listening', () => {
        const { port } = server.address() as AddressInfo;
        const body = JSON.stringify({ title: 'never' });
        // Headers as a flat list, the only way to send one twice; Node then adds neither Host nor framing.
        const list = [...headers.flat(), 'Host', `127.0.0.1:${port}`, 'Content-Type', 'application/json', 'Content-Length', String(body.length)];
        const req = http.request({ host: '127.0.0.1', port, path: '/api/posts', method: 'POST', headers: list as unknown as http.OutgoingHttpHeaders });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk));
          res.on('end', () => {
            server.close();
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    });
  }

  it.each([
    ['empty', [['Idempotency-Key', '']], 'must not be empty'],
    ['over 255 characters', [['Idempotency-Key', 'k'.repeat(256)]], 'at most 255'],
    ['with a space', [['Idempotency-Key', 'a b']], 'visible ASCII'],
    ['with a control character', [['Idempotency-Key', 'a\tb']], 'visible ASCII'],
    ['beyond ASCII', [['Idempotency-Key', 'caf\u00e9']], 'visible ASCII'],
    ['repeated', [['Idempotency-Key', 'a'], ['Idempotency-Key', 'b']], 'sent once'],
  ] as const)('%s: a 400 invalid_header naming the header, and nothing written', async (_name, headers, message) => {
    const res = await raw(headers.map(([name, value]) => [name, value]));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_header', errors: [{ field: 'Idempotency-Key', code: 'invalid_header' }] });
    expect(res.body.detail).toContain('Idempotency-Key');
    expect(res.body.detail).toContain(message);
    expect(await count('posts')).toBe(0);
    expect(await keyRows()).toEqual([]);
  });

  it('255 visible ASCII characters are a key', async () => {
    const key = `${'~'.repeat(127)}!${'k'.repeat(127)}`;
    expect(key).toHaveLength(255);
    await create(key, { title: 'long' }).expect(201);
    expect((await create(key, { title: 'long' })).headers['idempotent-replayed']).toBe('true');
  });
});

describe('uploads', () => {
  const upload = (key: string, bytes: Buffer, name = 'a.png', alt?: string) => {
    const req = request(t.app).post('/api/upload').set(...alice).set('Idempotency-Key', key);
    if (alt !== undefined) req.field('alt', alt);
    return req.attach('file', bytes, { filename: name, contentType: 'image/png' });
  };

  it('a repeat of the same upload (a new multipart boundary) replays it, with one file stored', async () => {
    const key = newKey();
    const { files } = await countStored(t.connection);
    const first = await upload(key, pngBytes(), 'a.png', 'a dot');
    expect(first.status).toBe(201);
    const again = await upload(key, pngBytes(), 'a.png', 'a dot');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countStored(t.connection)).toMatchObject({ files: files + 1 });
  });

  it('a repeat while the first upload still streams is a 409 before its body is read; then it replays', async () => {
    const key = newKey();
    const { files } = await countStored(t.connection);
    const bytes = pngBytes();
    const first = await startedUpload(key, bytes, async (slow, rest) => {
      const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
        slow.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        slow.on('error', reject);
      });
      await until(async () => (await keyRows()).length === 1);
      expectProblem(await upload(key, bytes), 409, 'idempotency_key_in_flight');
      rest();
      return answered;
    });
    expect(first.status).toBe(201);
    const again = await upload(key, bytes);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(JSON.parse(first.body));
    expect((await countStored(t.connection)).files).toBe(files + 1);
  });

  it('another file, name, alt text or a larger file with the key is a 422, and nothing more is stored', async () => {
    const key = newKey();
    const { files } = await countStored(t.connection);
    await upload(key, pngBytes(), 'a.png', 'alt').expect(201);
    const other = Buffer.from(pngBytes());
    other[other.length - 5] ^= 0xff;
    expectProblem(await upload(key, other, 'a.png', 'alt'), 422, 'idempotency_key_reused');
    expectProblem(await upload(key, pngBytes(), 'b.png', 'alt'), 422, 'idempotency_key_reused');
    expectProblem(await upload(key, pngBytes(), 'a.png', 'other alt'), 422, 'idempotency_key_reused');
    expectProblem(await upload(key, Buffer.concat([pngBytes(), Buffer.alloc(4096)]), 'a.png', 'alt'), 422, 'idempotency_key_reused');
    expect(await countStored(t.connection)).toMatchObject({ files: files + 1 });
  });
});

describe('object endpoints', () => {
  it('a POST endpoint replays its answer without running its handler again', async () => {
    const key = newKey();
    const before = calls.contact ?? 0;
    const first = await request(t.app).post('/api/contact').set('Idempotency-Key', key).send({ name: 'Ann' });
    expect(first.status).toBe(201);
    const again = await request(t.app).post('/api/contact').set('Idempotency-Key', key).send({ name: 'Ann' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(calls.contact).toBe(before + 1);
  });

  it('a multipart endpoint compares the form it read: the same form replays, another file is a 422', async () => {
    const key = newKey();
    const before = calls.attach ?? 0;
    const send = (bytes: Buffer) => request(t.app).post('/api/attach').set('Idempotency-Key', key).field('note', 'hi').attach('doc', bytes, { filename: 'd.txt', contentType: 'text/plain' });
    const first = await send(Buffer.from('hello'));
    expect(first.status).toBe(200);
    const again = await send(Buffer.from('hello'));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectProblem(await send(Buffer.from('hullo')), 422, 'idempotency_key_reused');
    expect(calls.attach).toBe(before + 1);
  });
});

describe('an answer too large to keep', () => {
  it('is sent, and its repeat is a 422 saying so, never a second run', async () => {
    const key = newKey();
    const before = calls.export ?? 0;
    const first = await request(t.app).post('/api/export').set('Idempotency-Key', key);
    expect(first.status).toBe(200);
    expect(first.text.length).toBe(1024 * 1024 + 1);
    const again = await request(t.app).post('/api/export').set('Idempotency-Key', key);
    expectProblem(again, 422, 'idempotency_key_reused');
    expect(again.body.detail).toContain('too large to keep');
    expect(calls.export).toBe(before + 1);
  });
});

describe('routes that never take a key', () => {
  it('updates run again whatever key they carry', async () => {
    const { body } = await create(undefined, { title: 'u' }).expect(201);
    const key = newKey();
    await request(t.app).patch(`/api/posts/${body.id}`).set('Idempotency-Key', key).send({ n: 1 }).expect(200);
    const again = await request(t.app).patch(`/api/posts/${body.id}`).set('Idempotency-Key', key).send({ n: 2 });
    expect(again.status).toBe(200);
    expect(again.body.n).toBe(2);
    expect(await keyRows()).toEqual([]);
  });

  it('auth routes: a repeated register with a key registers again (a 409 for the taken e-mail), never a replay', async () => {
    const auth = await app(
      { auth: { jwtSecret: 'x'.repeat(40), passwordHash: { cost: 1024 } }, collections: [{ slug: 'users', auth: true, fields: {} }] } as TestConfig,
      { connection: t.connection },
    );
    const key = newKey();
    const body = { email: `idem-${counter}@example.com`, password: 'Str0ng-passw0rd' };
    expect((await request(auth.app).post('/api/users/register').set('Idempotency-Key', key).send(body)).status).toBe(201);
    const again = await request(auth.app).post('/api/users/register').set('Idempotency-Key', key).send(body);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(409);
    await auth.connection.collection('users').deleteMany({});
  });
});

describe('idempotency: false', () => {
  it('ignores the header (as a server that does not know it) and does not document it', async () => {
    const off = await app({ ...CONFIG, idempotency: false } as ContentConfig, { connection: t.connection });
    const key = newKey();
    await create(key, { title: 'a' }, off).expect(201);
    const again = await create(key, { title: 'a' }, off);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('posts')).toBe(2);
    expect((await create('', { title: 'a' }, off)).status).toBe(201);
    const doc = (await request(off.app).get('/api/docs/openapi.json').expect(200)).body;
    expect(JSON.stringify(doc)).not.toContain('Idempotency-Key');
  });
});

describe('the OpenAPI document', () => {
  it('documents the header, the replay header, 409 with Retry-After and 422 on the routes that take a key, and only those', async () => {
    const doc = (await request(t.app).get('/api/docs/openapi.json').expect(200)).body;
    const keyParameter = (operation: { parameters?: { name: string; in: string }[] }) => operation.parameters?.find((p) => p.name === 'Idempotency-Key' && p.in === 'header');
    for (const [path, method, success] of [
      ['/posts', 'post', '201'],
      ['/upload', 'post', '201'],
      ['/contact', 'post', '200'],
      ['/contact', 'patch', '200'],
      ['/attach', 'post', '200'],
    ]) {
      const operation = doc.paths[path][method];
      expect(keyParameter(operation)).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
      expect(operation.responses[success].headers['Idempotent-Replayed']).toBeDefined();
      expect(operation.responses['409'].headers['Retry-After']).toBeDefined();
      expect(operation.responses['409'].description).toContain('idempotency_key_in_flight');
      expect(operation.responses['422'].description).toContain('idempotency_key_reused');
      expect(operation.responses['400'].description).toContain('Idempotency-Key');
    }
    // The unique conflict a create answers is still there beside the key's.
    expect(doc.paths['/posts'].post.responses['409'].description).toMatch(/^Unique value taken; or /);
    for (const [path, method] of [
      ['/posts', 'get'],
      ['/posts/{id}', 'patch'],
      ['/posts/{id}', 'delete'],
      ['/uploads/{filename}', 'delete'],
    ]) {
      expect(keyParameter(doc.paths[path][method])).toBeUndefined();
    }
  });
});
