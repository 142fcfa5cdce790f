// A read's body is the JSON of its value as JSON.stringify writes it, and its ETag the strong tag of exactly
// those bytes (the tag a write's If-Match compares), for a record and for a list. A host app that sets
// Express's JSON settings (`json spaces`, `json replacer`, `json escape`) gets its bodies written as those
// settings say, still tagged with the record's ETag and still answering a conditional GET.
import { createHash } from 'node:crypto';
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/create-test-app';

const collections = [
  {
    slug: 'notes',
    access: { read: () => true, create: () => true, update: () => true },
    fields: { title: { type: 'text' as const }, body: { type: 'textarea' as const }, count: { type: 'number' as const }, tags: { type: 'array' as const, of: 'text' as const }, meta: { type: 'json' as const } },
  },
];

const tagOf = (text: string) => `"${createHash('sha1').update(text).digest('base64url')}"`;

describe('the JSON of a read', () => {
  let t: TestApp;
  let id: string;

  beforeAll(async () => {
    t = await createTestApp({ collections });
    const created = await t.api.local.create('notes', { title: 'A <b>&</b> "quoted" note\u2028', body: 'line\nnext', count: 1.5, tags: ['x', 'y'], meta: { nested: [1, null, 'é'] } });
    id = created.id as string;
  });
  afterAll(() => t.close());

  it.each([
    ['a record', () => `/api/notes/${id}`],
    ['a list', () => '/api/notes?perPage=5'],
  ])('%s: the body is JSON.stringify of its value and the ETag the tag of those bytes', async (_name, path) => {
    const res = await request(t.app).get(path()).buffer(true).parse((r, done) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (chunk: string) => (text += chunk));
      r.on('end', () => done(null, text));
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const text = res.body as string;
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.etag).toBe(tagOf(text));
    const again = await request(t.app).get(path()).set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
  });

  it('a HEAD has the GET\'s headers and no body', async () => {
    const get = await request(t.app).get(`/api/notes/${id}`);
    const head = await request(t.app).head(`/api/notes/${id}`);
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.text ?? '').toBe('');
  });
});

describe("the JSON of a read in a host app with Express's JSON settings", () => {
  let t: TestApp;
  let id: string;

  beforeAll(async () => {
    t = await createTestApp({ collections });
    t.app.set('json spaces', 2);
    t.app.set('json escape', true);
    id = (await t.api.local.create('notes', { title: 'a <b>' })).id as string;
  });
  afterAll(() => t.close());

  it('writes the body as the settings say, tagged with the record\'s ETag that a write compares', async () => {
    const res = await request(t.app).get(`/api/notes/${id}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('\n  "title": "a \\u003cb\\u003e"');
    expect(res.headers.etag).toBe(tagOf(JSON.stringify(res.body)));
    expect((await request(t.app).get(`/api/notes/${id}`).set('If-None-Match', res.headers.etag)).status).toBe(304);
    const patched = await request(t.app).patch(`/api/notes/${id}`).set('If-Match', res.headers.etag).send({ title: 'b' });
    expect(patched.status).toBe(200);
  });

  it('writes a list as the settings say', async () => {
    const res = await request(t.app).get('/api/notes');
    expect(res.status).toBe(200);
    expect(res.text.startsWith('{\n  "data": [')).toBe(true);
    expect((await request(t.app).get('/api/notes').set('If-None-Match', res.headers.etag)).status).toBe(304);
  });
});
