// The example app as a newcomer meets it: seeded demo content, public reads, writes with the demo
// host user or a registered user's token, every feature turned on (cache, rate limit, uploads, realtime,
// custom endpoints, the API docs), and a second start that does not seed again.
import type { Server } from 'node:http';
import request from 'supertest';
import type { Connection } from 'mongoose';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';
import { closeServer, listen, openSse, openWs } from '../realtime/realtime-clients';
import { pngBytes } from '../uploads/upload-helpers';
import { generateTypes } from '../../lib/types-gen/generate-types';
import { lintWithRedocly } from '../openapi/openapi-validators';

// Plain CommonJS, required the way start.js does.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example app is plain CommonJS JavaScript, without typings
const { createExampleApp } = require('../../example-app/app.js') as {
  createExampleApp(args: { connection: Connection }): Promise<{
    app: import('express').Express;
    api: { close(): Promise<void>; attach(server: Server): void };
    seeded: boolean;
  }>;
};

const alice = ['X-Demo-User', 'alice'] as const;

let connection: Connection;
let example: Awaited<ReturnType<typeof createExampleApp>>;
const previousSecret = process.env.JWT_SECRET;

beforeAll(async () => {
  process.env.JWT_SECRET = 'example-app-test-secret-0123456789abcdef';
  connection = await openTestConnection();
  example = await createExampleApp({ connection });
});
afterAll(async () => {
  await example.api.close();
  await closeTestConnection(connection);
  process.env.JWT_SECRET = previousSecret;
});

it('seeds demo content on first start and serves it publicly', async () => {
  expect(example.seeded).toBe(true);
  const posts = await request(example.app).get('/api/posts?perPage=100');
  expect(posts.status).toBe(200);
  expect(posts.body.meta.total).toBe(25);
  const published = await request(example.app).get('/api/posts?where[status][eq]=published&sort=-publishedAt&depth=1&perPage=5');
  expect(published.body.data).toHaveLength(5);
  expect(published.body.data[0].author).toMatchObject({ name: expect.any(String) });
  const site = await request(example.app).get('/api/globals/site');
  expect(site.body).toMatchObject({ title: 'content-router demo', maintenance: false });
});

it('has access rules a user could copy: admins write reference data, users only their own posts', async () => {
  expect((await request(example.app).post('/api/categories').send({ name: 'Anon' })).status).toBe(401);
  const asAlice = await request(example.app).post('/api/categories').set('X-Demo-User', 'alice').send({ name: 'From Alice' });
  expect(asAlice.status).toBe(201);
  const register = (email: string) =>
    request(example.app).post('/api/users/register').send({ email, password: 'a long passphrase', name: 'Reader' });
  const ann = await register('ann@example.com');
  const bob = await register('bob@example.com');
  expect(ann.status).toBe(201);
  const asAnn = (req: request.Test) => req.set('Authorization', `Bearer ${ann.body.accessToken}`);
  // A registered user cannot change reference data or the site global...
  expect((await asAnn(request(example.app).post('/api/categories')).send({ name: 'From a token' })).status).toBe(403);
  expect((await asAnn(request(example.app).patch('/api/globals/site')).send({ title: 'Hijacked' })).status).toBe(403);
  // ...writes posts of their own...
  const post = await asAnn(request(example.app).post('/api/posts')).send({ title: 'Mine', owner: ann.body.user.id });
  expect(post.status).toBe(201);
  // ...but not in someone else's name (Ann cannot even see Bob's account, so it names no user for her),
  // not someone else's post, and cannot give hers away.
  const planted = await asAnn(request(example.app).post('/api/posts')).send({ title: 'Planted', owner: bob.body.user.id });
  expect(planted.status).toBe(400);
  expect(planted.body.errors[0]).toMatchObject({ field: 'owner', code: 'unknown_relation' });
  const seeded = (await request(example.app).get('/api/posts?perPage=1&where[owner][exists]=false')).body.data[0];
  expect((await asAnn(request(example.app).patch(`/api/posts/${seeded.id}`)).send({ title: 'Defaced' })).status).toBe(404);
  expect((await asAnn(request(example.app).patch(`/api/posts/${post.body.id}`)).send({ owner: bob.body.user.id })).status).toBe(400);
  expect((await asAnn(request(example.app).patch(`/api/posts/${post.body.id}`)).send({ owner: null })).status).toBe(403);
  expect((await asAnn(request(example.app).patch(`/api/posts/${post.body.id}`)).send({ title: 'Mine, edited' })).status).toBe(200);
});

it('keeps the mails it would send at /dev/mail, so a newcomer can use the tokens', async () => {
  await request(example.app).post('/api/users/forgot-password').send({ email: 'ann@example.com' }).expect(200);
  await new Promise((resolve) => setImmediate(resolve));
  const mail = await request(example.app).get('/dev/mail?to=ann@example.com');
  expect(mail.status).toBe(200);
  expect(mail.body).toMatchObject({ to: 'ann@example.com', subject: 'Reset your password', token: expect.any(String) });
  const reset = await request(example.app).post('/api/users/reset-password').send({ token: mail.body.token, password: 'a newer passphrase' });
  expect(reset.status).toBe(200);
  expect((await request(example.app).get('/dev/mail?to=nobody@example.com')).status).toBe(404);
});

it('serves its custom endpoints: published posts as the caller sees them, and a validated contact form', async () => {
  const published = await request(example.app).get('/api/posts/published');
  expect(published.status).toBe(200);
  expect(published.body.docs).toHaveLength(5);
  expect(published.body.docs.every((p: { status: string }) => p.status === 'published')).toBe(true);
  const bad = await request(example.app).post('/api/contact').send({ name: 'Ann' });
  expect(bad.status).toBe(400);
  expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'message', code: 'required' })]);
  const sent = await request(example.app).post('/api/contact').send({ name: 'Ann', message: 'Hello' });
  expect(sent.status).toBe(200);
  expect(sent.body).toEqual({ received: true });
});

it('caches each collection: X-Cache MISS then HIT for the same question, ETag revalidation, and a write drops it', async () => {
  const first = await request(example.app).get('/api/posts?where[status][eq]=published&sort=-createdAt');
  expect(first.status).toBe(200);
  expect(first.headers).toMatchObject({ 'x-cache': 'MISS', 'cache-control': 'public, no-cache', etag: expect.any(String) });
  // The same question, written differently.
  const again = await request(example.app).get('/api/posts?sort=-createdAt&where[status]=published');
  expect(again.headers['x-cache']).toBe('HIT');
  const unchanged = await request(example.app).get('/api/posts?where[status][eq]=published&sort=-createdAt').set('If-None-Match', first.headers.etag);
  expect(unchanged.status).toBe(304);
  expect((await request(example.app).get('/api/categories')).headers['x-cache']).toBe('MISS');
  expect((await request(example.app).get('/api/categories')).headers['x-cache']).toBe('HIT');
  await request(example.app).post('/api/categories').set(...alice).send({ name: 'Cached then dropped' }).expect(201);
  const after = await request(example.app).get('/api/categories');
  expect(after.headers['x-cache']).toBe('MISS');
  expect(after.body.data.map((c: { name: string }) => c.name)).toContain('Cached then dropped');
});

// Every request of this file counts against the example's 100 a minute from one client: about 60 so far.
it('rate-limits every route per client, and the credential routes per client and address', async () => {
  const list = await request(example.app).get('/api/authors');
  expect(list.headers['ratelimit-policy']).toMatch(/^"api"; q=100; w=60; pk=:/);
  const forgot = () => request(example.app).post('/api/users/forgot-password').send({ email: 'limited@example.com' });
  for (let i = 0; i < 10; i += 1) expect((await forgot()).status).toBe(200);
  const refused = await forgot();
  expect(refused.status).toBe(429);
  expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(refused.body).toMatchObject({ code: 'rate_limited' });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(60);
  expect(refused.headers.ratelimit).toMatch(/"auth"; r=0; t=\d+/);
});

it('stores uploads in GridFS, serves them, and links them from posts', async () => {
  const png = pngBytes();
  expect((await request(example.app).post('/api/upload').attach('file', png, 'dot.png')).status).toBe(401);
  const upload = await request(example.app).post('/api/upload').set(...alice).attach('file', png, 'dot.png').field('alt', 'A dot');
  expect(upload.status).toBe(201);
  expect(upload.body).toMatchObject({ originalName: 'dot.png', mimeType: 'image/png', size: png.length, alt: 'A dot', url: `/api/uploads/${upload.body.filename}` });
  const served = await request(example.app).get(upload.body.url).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
  expect(served.status).toBe(200);
  expect(Buffer.compare(served.body as Buffer, png)).toBe(0);
  // Only images and PDFs.
  const text = await request(example.app).post('/api/upload').set(...alice).attach('file', Buffer.from('plain words'), { filename: 'notes.txt', contentType: 'text/plain' });
  expect(text.status).toBe(415);
  const post = await request(example.app).post('/api/posts').set(...alice).send({ title: 'With a cover', cover: upload.body.id });
  expect(post.status).toBe(201);
  const populated = await request(example.app).get(`/api/posts/${post.body.id}?depth=1`);
  expect(populated.body.cover).toMatchObject({ id: upload.body.id, filename: upload.body.filename });
});

it('pushes realtime events over SSE and WebSocket once attached to the server', async () => {
  const server = await listen(example.app);
  const clients: Array<{ close(): void }> = [];
  try {
    example.api.attach(server);
    const sse = await openSse(server, '/api/sse?collections=posts');
    clients.push(sse);
    expect(sse.status).toBe(200);
    const ws = await openWs(server, '/api/ws');
    clients.push(ws);
    ws.send({ type: 'subscribe', collections: ['posts'] });
    await ws.next((m) => m.type === 'subscribed');
    const created = await request(example.app).post('/api/posts').set(...alice).send({ title: 'Live' }).expect(201);
    const event = await sse.next((e) => e.event === 'create');
    expect(JSON.parse(event.data)).toMatchObject({ type: 'create', collection: 'posts', docId: created.body.id, doc: { title: 'Live' } });
    expect(await ws.next((m) => m.type === 'create')).toMatchObject({ docId: created.body.id, doc: { title: 'Live' } });
  } finally {
    for (const client of clients) client.close();
    await closeServer(server);
  }
});

it('takes a multipart form with a file at a custom endpoint, and documents every feature in its OpenAPI document', async () => {
  const sent = await request(example.app).post('/api/applications').field('name', 'Ann').field('age', '31').field('subscribe', 'true').attach('attachment', Buffer.from('%PDF-1.4 cv'), { filename: 'cv.pdf', contentType: 'application/pdf' });
  expect(sent.status).toBe(200);
  expect(sent.body).toEqual({ received: true, name: 'Ann', attachment: { originalName: 'cv.pdf', mimeType: 'application/pdf', size: 11 } });
  const missing = await request(example.app).post('/api/applications').field('age', 'old');
  expect(missing.status).toBe(400);
  expect(missing.body.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`).sort()).toEqual(['age:invalid_type', 'name:required']);
  const doc = await request(example.app).get('/api/docs/openapi.json');
  expect(doc.status).toBe(200);
  expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/upload', '/uploads/{filename}', '/sse', '/ws', '/applications', '/contact', '/posts/published', '/mcp']));
});

it("serves a document that passes the repo's Redocly lint (recommended-strict) with no exception, as docs/openapi.md runs it", async () => {
  const doc = await request(example.app).get('/api/docs/openapi.json').expect(200);
  const problems = lintWithRedocly(doc.body, { strict: true });
  expect(problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
});

it('has a config module the types command reads without a database', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the example app is plain CommonJS JavaScript, without typings
  const types = generateTypes(require('../../example-app/content.config.js'));
  expect(types).toContain('export interface Post {');
  expect(types).toContain('export interface ContactForm {\n  name: string;\n  email?: string;\n  message: string;\n}');
  expect(types).toContain('export interface Application {\n  name: string;\n  age?: number;\n  subscribe?: boolean;\n  attachment?: UploadedFile;\n}');
});

it('does not seed again on the next start', async () => {
  const before = (await request(example.app).get('/api/posts?perPage=1')).body.meta.total;
  const again = await createExampleApp({ connection });
  try {
    expect(again.seeded).toBe(false);
    expect((await request(again.app).get('/api/posts?perPage=1')).body.meta.total).toBe(before);
  } finally {
    await again.api.close();
  }
});

it('has articles with drafts and history: anyone reads the published ones, any signed-in user edits them (docs/versions.md)', async () => {
  expect((await request(example.app).post('/api/articles').send({ title: 'Anonymous' })).status).toBe(401);
  const editor = await request(example.app).post('/api/users/register').send({ email: 'editor@example.com', password: 'a long passphrase', name: 'Eddie' });
  expect(editor.status).toBe(201);
  const created = await request(example.app).post('/api/articles').set('Authorization', `Bearer ${editor.body.accessToken}`).send({ title: 'Hello', slug: 'hello' });
  expect(created.status).toBe(201);
  const listed = await request(example.app).get('/api/articles');
  expect(listed.body.data.map((a: { slug: string }) => a.slug)).toEqual(['hello']);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the example app is plain CommonJS JavaScript, without typings
  const types = generateTypes(require('../../example-app/content.config.js'));
  expect(types).toContain('export interface ArticleDraft {');
  expect(types).toContain('export interface ArticleVersion extends ArticleVersionSummary {');
});
