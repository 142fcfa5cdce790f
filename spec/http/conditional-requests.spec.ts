// Conditional GET on every read that carries a validator (cached and uncached records, lists in each
// envelope, counts, globals, files): a matching If-None-Match is a 304 whatever Cache-Control or Pragma the
// request sends, as fetch() sends `Cache-Control: no-cache` with every revalidation. Checked with supertest
// and with Node's own fetch.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/create-test-app';
import { pngBytes } from '../uploads/upload-helpers';

let t: TestApp;
let server: http.Server;
let base: string;
/** Request headers as the server received them, by path and query (to show what fetch() really sends). */
const received = new Map<string, http.IncomingHttpHeaders>();
/** Every read with a validator, by name: its path under /api. */
const paths: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      { slug: 'posts', cache: { ttl: 60 }, fields: { title: { type: 'text' } }, access: { read: () => true } },
      { slug: 'notes', fields: { title: { type: 'text' } }, access: { read: () => true } },
    ],
    globals: [{ slug: 'site', fields: { title: { type: 'text', default: 'My site' } }, access: { read: () => true } }],
    uploads: {},
  });
  const post = await t.api.local.create('posts', { title: 'p' });
  const note = await t.api.local.create('notes', { title: 'n' });
  const file = await t.api.local.upload(pngBytes(), { filename: 'a.png', mimeType: 'image/png' });
  Object.assign(paths, {
    'cached list': '/posts',
    'cached list, Form A': '/posts?limit=5&sort=-createdAt',
    'cached list, Form B cursor': '/posts?cursor=&perPage=5&where[title][eq]=p',
    'cached list, Form C': '/posts?perPage=5&filter=title:p&fields=title',
    'cached record': `/posts/${post.id}`,
    'cached count': '/posts/count',
    'cached count, filtered': '/posts/count?filter=title:p',
    'uncached list': '/notes',
    'uncached list, Form A': '/notes?limit=5&sort=-createdAt',
    'uncached list, Form B cursor': '/notes?cursor=&perPage=5&where[title][eq]=n',
    'uncached list, Form C': '/notes?perPage=5&filter=title:n&fields=title',
    'uncached record': `/notes/${note.id}`,
    'uncached count': '/notes/count',
    'uncached count, filtered': '/notes/count?where[title][eq]=n',
    global: '/globals/site',
    file: `/uploads/${file.filename}`,
  });
  const host = express();
  host.use((req, _res, next) => {
    received.set(req.originalUrl, req.headers);
    next();
  });
  host.use(t.app);
  server = http.createServer(host);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

afterEach(() => expect(t.hostErrors).toEqual([]));

const get = (path: string) => request(t.app).get(`/api${path}`);

/** The ETag of a plain GET (the first read of a cached path fills the cache; the ETag stays the same). */
async function etagOf(path: string): Promise<string> {
  const res = await get(path).expect(200);
  expect(res.headers.etag).toEqual(expect.any(String));
  return res.headers.etag;
}

const FAMILIES = [
  'cached list',
  'cached list, Form A',
  'cached list, Form B cursor',
  'cached list, Form C',
  'cached record',
  'cached count',
  'cached count, filtered',
  'uncached list',
  'uncached list, Form A',
  'uncached list, Form B cursor',
  'uncached list, Form C',
  'uncached record',
  'uncached count',
  'uncached count, filtered',
  'global',
  'file',
];

describe.each(FAMILIES)('%s', (name) => {
  it('answers 304 to a matching If-None-Match sent with Cache-Control: no-cache and Pragma: no-cache', async () => {
    const path = paths[name];
    const etag = await etagOf(path);
    const res = await get(path).set('If-None-Match', etag).set('Cache-Control', 'no-cache').set('Pragma', 'no-cache');
    expect(res.status).toBe(304);
    expect(res.headers.etag).toBe(etag);
    expect(res.text ?? '').toBe('');
    // max-age=0 (a browser's reload) is the same question.
    await get(path).set('If-None-Match', etag).set('Cache-Control', 'max-age=0').expect(304);
  });

  it('compares weakly, takes lists and *, and answers 200 when nothing matches', async () => {
    const path = paths[name];
    const etag = await etagOf(path);
    const weak = etag.startsWith('W/') ? etag : `W/${etag}`;
    const strong = etag.replace(/^W\//, '');
    const conditional = (value: string) => get(path).set('If-None-Match', value).set('Cache-Control', 'no-cache');
    await conditional(weak).expect(304);
    await conditional(strong).expect(304);
    await conditional(`"other", ${weak}`).expect(304);
    await conditional('*').expect(304);
    const other = await conditional('"other", W/"another"').expect(200);
    expect(other.headers.etag).toBe(etag);
    // A malformed header is simply not a match.
    await conditional('garbage').expect(200);
  });

  it('answers 304 to a revalidation made with fetch()', async () => {
    const path = paths[name];
    const url = `${base}/api${path}`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    expect(etag).toEqual(expect.any(String));
    const again = await fetch(url, { headers: { 'If-None-Match': etag } });
    await again.arrayBuffer();
    // fetch() made the request unconditional for caches on the way: the origin still evaluates it.
    expect(received.get(`/api${path}`)).toMatchObject({ 'if-none-match': etag, 'cache-control': 'no-cache' });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
  });

  it('answers 304 to a conditional HEAD sent with Cache-Control: no-cache', async () => {
    const path = paths[name];
    const etag = await etagOf(path);
    const res = await request(t.app).head(`/api${path}`).set('If-None-Match', etag).set('Cache-Control', 'no-cache');
    expect(res.status).toBe(304);
    expect(res.headers.etag).toBe(etag);
  });
});

describe('in the OpenAPI document', () => {
  it('every read that can answer 304 takes If-None-Match and declares the 304', async () => {
    const doc = (await request(t.app).get('/api/docs/openapi.json').expect(200)).body;
    const reads = ['/posts', '/posts/count', '/posts/{id}', '/notes', '/notes/count', '/notes/{id}', '/globals/site', '/uploads/{filename}'];
    for (const path of reads) {
      const get = doc.paths[path]?.get;
      expect({ path, has304: Boolean(get?.responses?.['304']) }).toEqual({ path, has304: true });
      if (path === '/uploads/{filename}') continue;
      expect({ path, header: get.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'If-None-Match') }).toEqual({ path, header: true });
    }
  });
});
