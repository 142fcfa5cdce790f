// api.local.schema(): the caller's schema from server code, as GET /schema answers it for that caller; a hook's
// `api.schema()` runs as the hook's caller. Without a user (access overridden) every right is granted.
import request from 'supertest';
import { type AccessArgs, type CallerSchema, ForbiddenError } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = ({ user }: AccessArgs) => user?.role === 'admin';
const seen: CallerSchema[] = [];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'notes',
        access: { read: () => true, update: ({ user }) => (user ? { owner: { eq: user.id } } : false), delete: admin },
        fields: { body: { type: 'text' }, owner: { type: 'text' }, score: { type: 'number', access: { read: admin } } },
        hooks: {
          // What a hook's api.schema() sees: the schema of the caller of the operation it runs in.
          beforeChange: [async ({ api, data }) => (seen.push(await api.schema()), data)],
        },
      },
      // A where that selects every record is every record; a rule refusing by throwing a 403 refuses.
      { slug: 'open', access: { read: () => ({}), create: () => ({}), update: () => Promise.reject(new ForbiddenError()), delete: () => false }, fields: { a: { type: 'text' } } },
      { slug: 'secrets', access: { read: admin, create: admin, update: admin, delete: admin }, fields: { value: { type: 'text' } } },
    ],
    globals: [{ slug: 'site', access: { read: () => true, update: admin }, fields: { name: { type: 'text' } } }],
  });
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const slugs = (schema: CallerSchema) => schema.collections.map((c) => c.slug);

it('answers as GET /schema does for the same caller', async () => {
  const user = { id: '0123456789abcdef01234567', role: 'writer' };
  const local = await t.api.local.schema({ user });
  const res = await request(t.app).get('/api/schema').set(...asUser(user));
  expect(res.status).toBe(200);
  expect(local).toEqual(res.body);
  expect(slugs(local)).toEqual(['notes', 'open']);
  expect(local.collections[0].access).toEqual({ read: true, create: true, update: 'some', delete: false });
  expect(local.collections[0].fields.map((f) => f.name)).not.toContain('score');
});

it('an anonymous caller ({ user: null }) sees what anonymous requests do', async () => {
  const local = await t.api.local.schema({ user: null });
  expect(local).toEqual((await request(t.app).get('/api/schema')).body);
  expect(local.collections[0].access).toEqual({ read: true, create: false, update: false, delete: false });
  expect(local.globals.map((g) => g.slug)).toEqual(['site']);
});

it('without a user (access overridden): every collection, global and right, every readable field', async () => {
  const schema = await t.api.local.schema();
  expect(slugs(schema)).toEqual(['notes', 'open', 'secrets']);
  expect(schema.collections[0].access).toEqual({ read: true, create: true, update: true, delete: true });
  expect(schema.collections[0].fields.map((f) => f.name)).toContain('score');
  expect(schema.globals[0].access).toEqual({ read: true, update: true });
});

it("a hook's api.schema() is its caller's", async () => {
  seen.length = 0;
  const res = await request(t.app).post('/api/notes').set(...asUser({ id: '0123456789abcdef01234568', role: 'admin' })).send({ body: 'hi' });
  expect(res.status).toBe(201);
  expect(seen).toHaveLength(1);
  expect(slugs(seen[0])).toEqual(['notes', 'open', 'secrets']);
  expect(seen[0].collections[0].access.delete).toBe(true);
});

it("answers true for a rule's where that selects every record, false for a rule that throws a 403", async () => {
  const open = (await t.api.local.schema({ user: null })).collections.find((c) => c.slug === 'open');
  expect(open?.access).toEqual({ read: true, create: true, update: false, delete: false });
});

it('refuses an undefined user as every local call does', async () => {
  await expect(t.api.local.schema({ user: undefined })).rejects.toThrow(TypeError);
});
