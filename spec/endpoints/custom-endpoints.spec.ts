// Custom endpoints over HTTP, both forms: function endpoints (a router, req.context bound to the caller's
// access) and object endpoints (return value as JSON, body schemas with JSON and multipart bodies), with
// every failure answered as problem+json and start-up collisions refused.
import express4 from 'express4';
import request from 'supertest';
import { ConfigError, NotFoundError, contentRouter, type EndpointFile, type EndpointHandlerArgs, type EndpointObject } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import mongoose from 'mongoose';
import { until } from '../helpers/eventually';
import { closeTestConnection, openTestConnection, testDbUri, uniqueDbName } from '../helpers/test-db';

const admin = asUser({ id: '000000000000000000000001', role: 'admin' });
const PROBLEM = /application\/problem\+json/;

const contactForm: EndpointObject = {
  path: '/contact',
  method: 'post',
  schema: {
    name: 'ContactForm',
    body: {
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 40 },
        age: { type: 'number', integer: true, minimum: 0 },
        subscribe: { type: 'boolean' },
        topic: { type: 'string', enum: ['sales', 'support'] },
      },
      required: ['name'],
    },
    response: { type: 'object', properties: { received: { type: 'object' } } },
  },
  detail: { summary: 'Send a contact form', tags: ['contact'] },
  handler: ({ body, user }) => ({ received: body, user: user?.id ?? null }),
};

const uploadForm: EndpointObject = {
  path: '/attachments',
  method: 'post',
  schema: {
    name: 'AttachmentForm',
    body: {
      properties: {
        title: { type: 'string' },
        count: { type: 'number' },
        urgent: { type: 'boolean' },
        file: { type: 'file', maxSize: 1024 },
      },
      required: ['title', 'file'],
    },
  },
  // Annotated with the body's type, as with a generated interface.
  handler: ({ body }: EndpointHandlerArgs<{ title: string; count?: number; urgent?: boolean; file: EndpointFile }>) => {
    const { file } = body;
    return {
      title: body.title,
      count: body.count,
      urgent: body.urgent,
      file: { originalName: file.originalName, mimeType: file.mimeType, size: file.size, text: file.buffer.toString('utf8') },
    };
  },
};

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'posts',
        // Anonymous callers see published posts only; any signed-in user sees everything.
        access: { read: ({ user }) => (user ? true : { status: { eq: 'published' } }) },
        fields: {
          title: { type: 'text', required: true },
          status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
        },
      },
    ],
    endpoints: [
      (router) => {
        router.use((_req, res, next) => {
          res.set('X-Custom-Router', 'yes');
          next();
        });
        router.get('/posts/published', async (req, res) => {
          const result = await req.context!.find('posts', { where: { status: 'published' }, sort: 'title', limit: 5 });
          res.json({ titles: result.docs.map((d) => d.title) });
        });
        router.get('/visible-posts', async (req, res) => {
          const result = await req.context!.find('posts', { sort: 'title' });
          res.json({ user: req.context!.user?.id ?? null, titles: result.docs.map((d) => d.title) });
        });
        // A handler in plain JavaScript may pass any option: none of them lifts the caller's access.
        router.get('/smuggled-override', async (req, res) => {
          const smuggled = { sort: 'title', overrideAccess: true, user: null } as Record<string, unknown>;
          const result = await req.context!.find('posts', smuggled);
          res.json({ titles: result.docs.map((d) => d.title) });
        });
        router.delete('/smuggled-override/:id', async (req, res) => {
          res.json(await req.context!.delete('posts', String(req.params.id), { overrideAccess: true } as Record<string, unknown>));
        });
        router.post('/posts/:id/publish', async (req, res) => {
          res.json(await req.context!.update('posts', String(req.params.id), { status: 'published' }));
        });
        router.post('/echo', (req, res) => {
          res.json({ body: req.body });
        });
        router.get('/fails/not-found', async () => {
          throw new NotFoundError('No such thing here.');
        });
        router.get('/fails/crash', async () => {
          throw new Error('database password is hunter2');
        });
      },
      contactForm,
      uploadForm,
      {
        path: '/stats/:kind',
        method: 'get',
        handler: async ({ db, query, params, req }) => ({
          posts: await db.collection('posts').countDocuments(),
          query,
          params,
          contextUser: req.context?.user?.id ?? null,
        }),
      },
      { path: '/nothing', method: 'delete', handler: () => undefined },
      { path: '/created', method: 'put', handler: ({ res, body }) => { res.status(201); return { body: body ?? null }; } },
      { path: '/raw', method: 'get', handler: ({ res }) => { res.status(202).type('text/plain').send('raw answer'); } },
      { path: '/boom', method: 'get', handler: () => { throw new Error('secret internals'); } },
      { path: '/teapot', method: 'get', handler: () => { throw new NotFoundError('Nothing to brew.'); } },
    ],
  });
  await t.api.local.createMany('posts', [
    { title: 'B published', status: 'published' },
    { title: 'A draft', status: 'draft' },
    { title: 'C published', status: 'published' },
  ]);
});

afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

describe('function endpoints', () => {
  it('serves a route registered on the router, beating the generated /posts/:id, with its router.use() middleware', async () => {
    const res = await request(t.app).get('/api/posts/published');
    expect(res.status).toBe(200);
    expect(res.headers['x-custom-router']).toBe('yes');
    expect(res.body).toEqual({ titles: ['B published', 'C published'] });
  });

  it("gives req.context the caller and applies the caller's read access", async () => {
    const anonymous = await request(t.app).get('/api/visible-posts');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ user: null, titles: ['B published', 'C published'] });
    const signedIn = await request(t.app).get('/api/visible-posts').set(...admin);
    expect(signedIn.body).toEqual({ user: '000000000000000000000001', titles: ['A draft', 'B published', 'C published'] });
  });

  it("writes with the caller's access: anonymous is refused and nothing changes, a user may", async () => {
    const draft = (await t.api.local.find('posts', { where: { title: 'A draft' } })).docs[0];
    const refused = await request(t.app).post(`/api/posts/${draft.id}/publish`);
    expect(refused.status).toBe(401);
    expect(refused.headers['content-type']).toMatch(PROBLEM);
    expect((await t.api.local.findById('posts', draft.id)).status).toBe('draft');

    const done = await request(t.app).post(`/api/posts/${draft.id}/publish`).set(...admin);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: draft.id, status: 'published' });
    expect((await t.connection.collection('posts').findOne({ title: 'A draft' }))?.status).toBe('published');
    await t.api.local.update('posts', draft.id, { status: 'draft' });
  });

  it('keeps the caller\'s access whatever options a handler passes (overrideAccess, user): nothing read or deleted beyond it', async () => {
    const anonymous = await request(t.app).get('/api/smuggled-override');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ titles: ['B published', 'C published'] });
    const draft = (await t.connection.collection('posts').findOne({ title: 'A draft' }))!;
    const refused = await request(t.app).delete(`/api/smuggled-override/${String(draft._id)}`);
    expect(refused.status).toBe(401);
    expect(refused.headers['content-type']).toMatch(PROBLEM);
    expect(await t.connection.collection('posts').countDocuments({ title: 'A draft' })).toBe(1);
  });

  it('parses JSON bodies and leaves other types to the handler', async () => {
    const json = await request(t.app).post('/api/echo').send({ a: 1 });
    expect(json.body).toEqual({ body: { a: 1 } });
    const text = await request(t.app).post('/api/echo').type('text/plain').send('hello');
    expect(text.status).toBe(200);
    const malformed = await request(t.app).post('/api/echo').type('application/json').send('{"a":');
    expect(malformed.status).toBe(400);
    expect(malformed.headers['content-type']).toMatch(PROBLEM);
    // Read in the parse phase with the same limits and answers as the body parser gives a plain app.
    const large = await request(t.app).post('/api/echo').type('application/json').send(JSON.stringify({ a: 'x'.repeat(1024 * 1024) }));
    expect(large.status).toBe(413);
    expect(large.headers['content-type']).toMatch(PROBLEM);
    const charset = await request(t.app).post('/api/echo').set('Content-Type', 'application/json; charset=latin-9').send('{"a":1}');
    expect(charset.status).toBe(415);
    expect(charset.headers['content-type']).toMatch(PROBLEM);
  });

  it('answers another method on its path with 405 and Allow', async () => {
    const res = await request(t.app).delete('/api/posts/published');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('maps thrown errors to problem+json: a ContentError keeps its status, anything else is a 500 without internals', async () => {
    const notFound = await request(t.app).get('/api/fails/not-found');
    expect(notFound.status).toBe(404);
    expect(notFound.headers['content-type']).toMatch(PROBLEM);
    expect(notFound.body.detail).toBe('No such thing here.');

    const crash = await request(t.app).get('/api/fails/crash');
    expect(crash.status).toBe(500);
    expect(crash.headers['content-type']).toMatch(PROBLEM);
    expect(crash.body).toMatchObject({ status: 500, code: 'internal_error', detail: 'An unexpected error occurred.' });
    expect(crash.text).not.toContain('hunter2');
    expect(crash.text).not.toMatch(/\bat .*\.ts:\d+/);
  });
});

describe('object endpoints', () => {
  it('hands the handler db, the qs-parsed query, params and req.context; the return value is the JSON answer', async () => {
    const res = await request(t.app).get('/api/stats/daily?where[status][eq]=published&tags[]=a&tags[]=b').set(...admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      posts: 3,
      query: { where: { status: { eq: 'published' } }, tags: ['a', 'b'] },
      params: { kind: 'daily' },
      contextUser: '000000000000000000000001',
    });
  });

  it('answers 204 for undefined, keeps a status the handler set, and sends nothing more after the handler answered', async () => {
    const empty = await request(t.app).delete('/api/nothing');
    expect(empty.status).toBe(204);
    expect(empty.text).toBe('');
    const created = await request(t.app).put('/api/created').send({ x: true });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ body: { x: true } });
    const raw = await request(t.app).get('/api/raw');
    expect(raw.status).toBe(202);
    expect(raw.text).toBe('raw answer');
  });

  it('maps a thrown ContentError to its status and anything else to a 500 without a stack', async () => {
    const teapot = await request(t.app).get('/api/teapot');
    expect(teapot.status).toBe(404);
    expect(teapot.body.detail).toBe('Nothing to brew.');
    const boom = await request(t.app).get('/api/boom');
    expect(boom.status).toBe(500);
    expect(boom.headers['content-type']).toMatch(PROBLEM);
    expect(boom.body.detail).toBe('An unexpected error occurred.');
    expect(boom.text).not.toContain('secret internals');
  });

  describe('JSON body schema', () => {
    it('passes a valid body to the handler with only its declared properties', async () => {
      const res = await request(t.app).post('/api/contact').set(...admin).send({ name: 'Ann', age: 31, subscribe: true, topic: 'sales' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { name: 'Ann', age: 31, subscribe: true, topic: 'sales' }, user: '000000000000000000000001' });
    });

    it('is a 400 naming every bad field', async () => {
      const res = await request(t.app).post('/api/contact').send({ age: 'old', subscribe: 'yes', topic: 'hr', extra: 1 });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.code).toBe('validation_error');
      const byField = Object.fromEntries(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]));
      expect(byField).toEqual({ extra: 'unknown_field', name: 'required', age: 'invalid_type', subscribe: 'invalid_type', topic: 'invalid_option' });
    });

    it('checks bounds and whole numbers', async () => {
      const res = await request(t.app).post('/api/contact').send({ name: 'x'.repeat(41), age: 1.5 });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['age', 'name']);
    });

    it('refuses a body that is not JSON (415), malformed JSON (400) and a non-object (400)', async () => {
      expect((await request(t.app).post('/api/contact').type('text/plain').send('name=Ann')).status).toBe(415);
      expect((await request(t.app).post('/api/contact').type('application/json').send('{"name":')).status).toBe(400);
      const array = await request(t.app).post('/api/contact').send([{ name: 'Ann' }]);
      expect(array.status).toBe(400);
      expect(array.body.errors[0].code).toBe('invalid_body');
    });
  });

  describe('multipart body schema (file properties)', () => {
    it('reads text fields (cast to their types) and the file', async () => {
      const res = await request(t.app)
        .post('/api/attachments')
        .field('title', 'Report')
        .field('count', '3')
        .field('urgent', 'true')
        .attach('file', Buffer.from('hello file'), { filename: 'hello.txt', contentType: 'text/plain' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        title: 'Report',
        count: 3,
        urgent: true,
        file: { originalName: 'hello.txt', mimeType: 'text/plain', size: 10, text: 'hello file' },
      });
    });

    it('reads a non-ASCII file name sent as UTF-8 bytes or as an RFC 5987 filename*', async () => {
      for (const [disposition, name] of [
        ['filename="résumé ü.txt"', 'résumé ü.txt'],
        ["filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt", '日本.txt'],
      ]) {
        const body = Buffer.concat([
          Buffer.from('--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nCV\r\n'),
          Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; '),
          Buffer.from(disposition, 'utf8'),
          Buffer.from('\r\nContent-Type: text/plain\r\n\r\nhello\r\n--xyz--\r\n'),
        ]);
        const res = await request(t.app).post('/api/attachments').set('Content-Type', 'multipart/form-data; boundary=xyz').send(body);
        expect(res.status).toBe(200);
        expect(res.body.file).toEqual({ originalName: name, mimeType: 'text/plain', size: 5, text: 'hello' });
      }
    });

    it('is a 400 naming a missing file, a bad number and a file sent under a text property', async () => {
      const missing = await request(t.app).post('/api/attachments').field('count', 'three');
      expect(missing.status).toBe(400);
      const fields = missing.body.errors.map((e: { field: string }) => e.field).sort();
      expect(fields).toEqual(['count', 'file', 'title']);

      const misplaced = await request(t.app).post('/api/attachments').field('title', 'x').attach('title', Buffer.from('x'), 'x.txt');
      expect(misplaced.status).toBe(400);
      expect(misplaced.body.errors).toEqual([expect.objectContaining({ field: 'title', code: 'unexpected_file' })]);

      const textForFile = await request(t.app).post('/api/attachments').field('title', 'x').field('file', 'not a file');
      expect(textForFile.status).toBe(400);
      expect(textForFile.body.errors).toEqual([expect.objectContaining({ field: 'file', code: 'invalid_type' })]);
    });

    it('is a 400 for a form that does not parse', async () => {
      const garbage = await request(t.app)
        .post('/api/attachments')
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nunterminated');
      expect(garbage.status).toBe(400);
      expect(garbage.headers['content-type']).toMatch(PROBLEM);
      const noBoundary = await request(t.app).post('/api/attachments').set('Content-Type', 'multipart/form-data').send('x');
      expect(noBoundary.status).toBe(400);
    });

    it('is a 413 for a file over its maxSize and a 415 for a JSON body', async () => {
      const big = await request(t.app).post('/api/attachments').field('title', 'x').attach('file', Buffer.alloc(2048, 1), 'big.bin');
      expect(big.status).toBe(413);
      expect(big.headers['content-type']).toMatch(PROBLEM);
      expect(big.body.detail).toContain('"file"');
      const json = await request(t.app).post('/api/attachments').send({ title: 'x' });
      expect(json.status).toBe(415);
    });
  });
});

describe('start-up checks', () => {
  const collections = [{ slug: 'posts', fields: { title: { type: 'text' as const } } }];

  async function startError(endpoints: NonNullable<Parameters<typeof createTestApp>[0]['endpoints']>): Promise<ConfigError> {
    const error = await createTestApp({ collections, endpoints }).then(
      async (app) => {
        await app.close();
        throw new Error('expected a ConfigError');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }

  it('refuses an object endpoint colliding with a generated route, naming both', async () => {
    const error = await startError([{ path: '/posts', method: 'post', handler: () => 1 }]);
    expect(error.message).toContain('endpoints[0]');
    expect(error.message).toContain('posts.create');
  });

  it('refuses a function endpoint route colliding with a generated route, naming both', async () => {
    const error = await startError([{ path: '/ok', method: 'get', handler: () => 1 }, (router) => router.delete('/posts/:slug', () => undefined)]);
    expect(error.message).toMatch(/DELETE \/posts\/:slug \(endpoints\[1\].*collides with DELETE \/posts\/:id \(posts\.delete\)/);
  });

  it('refuses wildcard, pattern and array paths and router.use() with a path, naming the endpoint', async () => {
    const error = await startError([
      (router) => {
        router.get('/files/*rest', () => undefined);
        router.get(/^\/re/, () => undefined);
        router.get(['/a', '/b'], () => undefined);
        router.use('/sub', express4.Router() as never);
      },
    ]);
    expect(error.problems).toEqual([
      expect.stringMatching(/^endpoints\[0\]: route path "\/files\/\*rest" must start with/),
      expect.stringMatching(/^endpoints\[0\]: route path \/\^\\\/re\/ must start with/),
      expect.stringMatching(/^endpoints\[0\]: route path an array of paths must start with/),
      expect.stringMatching(/^endpoints\[0\]: router\.use\(\) with a path cannot be listed/),
    ]);
  });

  it('closes the connection it opened when a collision stops the start', async () => {
    const dbName = uniqueDbName();
    const before = new Set(mongoose.connections);
    expect(() =>
      contentRouter({ db: { uri: testDbUri(), options: { dbName } }, collections, endpoints: [{ path: '/posts/:x', method: 'get', handler: () => 1 }] }),
    ).toThrow(/endpoints\[0\][\s\S]*posts\.get/);
    // Taken at once: the close that started is asynchronous.
    const opened = mongoose.connections.find((c) => !before.has(c));
    expect(opened).toBeDefined();
    await until(() => opened!.readyState === mongoose.ConnectionStates.disconnected, 5000, 'the connection closed');
  });

  it('refuses a malformed object endpoint before touching the database', () => {
    expect(() =>
      contentRouter({ db: { uri: 'mongodb://127.0.0.1:1/never' }, endpoints: [{ path: 'no-slash', method: 'fetch', handler: 1 } as never] }),
    ).toThrow(/endpoints\[0\]\.path[\s\S]*endpoints\[0\]\.method[\s\S]*endpoints\[0\]\.handler/);
  });
});

describe('under an Express 4 host', () => {
  it('serves both forms', async () => {
    const connection = await openTestConnection();
    const api = contentRouter({
      db: { connection },
      logger: { error: () => undefined, warn: () => undefined },
      endpoints: [(router) => router.get('/hello/:name', (req, res) => { res.json({ hello: req.params.name }); }), { path: '/ping', method: 'get', handler: () => ({ pong: true }) }],
    });
    try {
      await api.ready;
      const app = express4();
      app.use('/api', api as unknown as express4.RequestHandler);
      expect((await request(app).get('/api/hello/ann')).body).toEqual({ hello: 'ann' });
      expect((await request(app).get('/api/ping')).body).toEqual({ pong: true });
    } finally {
      await api.close();
      await closeTestConnection(connection);
    }
  });
});
