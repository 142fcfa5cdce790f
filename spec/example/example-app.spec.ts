// The example app as a newcomer meets it: seeded demo content, public reads, writes with the demo
// host user or a registered user's token, and a second start that does not seed again.
import request from 'supertest';
import type { Connection } from 'mongoose';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';
import { generateTypes } from '../../lib/types-gen/generate-types';

// Plain CommonJS, required the way start.js does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createExampleApp } = require('../../example-app/app.js') as {
  createExampleApp(args: { connection: Connection }): Promise<{ app: import('express').Express; api: { close(): Promise<void> }; seeded: boolean }>;
};

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

it('has a config module the types command reads without a database', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const types = generateTypes(require('../../example-app/content.config.js'));
  expect(types).toContain('export interface Post {');
  expect(types).toContain('export interface ContactForm {\n  name: string;\n  email?: string;\n  message: string;\n}');
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
