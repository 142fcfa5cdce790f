// What a hook can reach and what reaches past it: registration's hooks act as the anonymous registrant, a
// hook changing a record in place changes only its own caller's copy, a failing afterChange's in-place
// change is not shown, an answer populated through another collection's read hooks is never shared by the
// cache, and a ContentError thrown with a status that is not an error status is the host's 500.
import request from 'supertest';
import { ContentError } from '../../lib';
import type { ReadHookArgs } from '../../lib/config/hooks';
import type { LocalApi } from '../../lib';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };
let t: TestApp;
let registerResult: { forged?: string; read?: string } = {};

beforeAll(async () => {
  t = await createTestApp({
    auth: { jwtSecret: 'attack-secret-0123456789-abcdefghijklmn', passwordHash: { cost: 1024, blockSize: 8, parallelization: 1 } },
    collections: [
      { slug: 'journal', fields: { note: { type: 'text' } }, access: { read: () => false, create: () => false } },
      {
        slug: 'people',
        auth: true,
        fields: { bio: { type: 'text' } },
        hooks: {
          afterChange: [
            async ({ api }) => {
              const local = api as LocalApi;
              registerResult = {};
              await local.create('journal', { note: 'forged' }).then(() => (registerResult.forged = 'written'), (e: Error) => (registerResult.forged = e.name));
              await local.find('journal').then(() => (registerResult.read = 'read'), (e: Error) => (registerResult.read = e.name));
            },
          ],
        },
      },
      {
        slug: 'papers',
        fields: { title: { type: 'text' }, meta: { type: 'json' } },
        access: everyone,
        hooks: {
          afterRead: [({ doc, req }: ReadHookArgs) => {
            const who = req?.get('x-who');
            if (who && doc.meta) (doc.meta as Record<string, unknown>).viewer = who;
            if (doc.title === 'whoami') return { ...doc, viewer: who ?? 'anonymous' };
            return undefined;
          }],
          afterChange: [({ doc }) => {
            if (doc.title === 'mutate-throw') {
              doc.title = 'MUTATED';
              throw new Error('after mutating');
            }
          }],
          beforeValidate: [({ data }) => {
            if (typeof data.title === 'string' && data.title.startsWith('status-')) throw new ContentError(Number(data.title.slice(7)), 'odd', 'Odd', 'odd status');
          }],
        },
      },
      {
        slug: 'shelves',
        fields: { label: { type: 'text' }, doc: { type: 'relationship', relationTo: 'papers' } },
        access: everyone,
        cache: { ttl: 60 },
      },
    ],
  });
});
afterAll(() => t.close());

it('registration: hooks\' api acts as the anonymous registrant, not with access skipped', async () => {
  const res = await request(t.app).post('/api/people/register').send({ email: 'reg-attack@example.com', password: 'Corr3ct-Horse!' });
  expect(res.status).toBe(201);
  expect(registerResult).toEqual({ forged: 'UnauthorizedError', read: 'UnauthorizedError' });
  expect(await t.connection.collection('journal').countDocuments()).toBe(0);
});

it('a hook changing a json value in place changes only its own caller\'s copy', async () => {
  const { id } = await t.api.local.create('papers', { title: 'shared', meta: { k: 1 } });
  const viewer = await request(t.app).get(`/api/papers/${id}`).set('x-who', 'viewer@example.com');
  expect(viewer.body.meta).toEqual({ k: 1, viewer: 'viewer@example.com' });
  const other = await request(t.app).get(`/api/papers/${id}`);
  expect(other.body.meta).toEqual({ k: 1 });
  const stored = await t.connection.collection('papers').findOne({ title: 'shared' });
  expect(stored?.meta).toEqual({ k: 1 });
});

it('an afterChange that changes the record in place and then throws: the answer is the stored record', async () => {
  const res = await request(t.app).post('/api/papers').send({ title: 'mutate-throw' });
  expect(res.status).toBe(201);
  expect(res.body.title).toBe('mutate-throw');
});

it('an answer populated through another collection\'s read hooks is not shared by the cache', async () => {
  const { id } = await t.api.local.create('papers', { title: 'whoami' });
  await t.api.local.create('shelves', { label: 's', doc: id });
  const first = await request(t.app).get('/api/shelves?depth=1').set('x-who', 'viewer@example.com');
  expect(JSON.stringify(first.body)).toContain('viewer@example.com');
  const second = await request(t.app).get('/api/shelves?depth=1');
  expect(second.status).toBe(200);
  expect(JSON.stringify(second.body)).not.toContain('viewer@example.com');
});

it.each([200, 204, 100, 0, 302, 600])('a ContentError thrown with status %s is a 500 problem, nothing written', async (status) => {
  const res = await request(t.app).post('/api/papers').send({ title: `status-${status}` });
  expect(res.status).toBe(500);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(await t.connection.collection('papers').countDocuments({ title: `status-${status}` })).toBe(0);
});
