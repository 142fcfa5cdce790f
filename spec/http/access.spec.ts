// Access rules over REST: true / false / where-constraint per operation, API-key scopes, and the
// 401 (no user) / 403 (user, denied) / 404 (outside the constraint) split of the core issue.
import request from 'supertest';
import { Types } from 'mongoose';
import { ForbiddenError, type AccessArgs } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const ann = { id: '0000000000000000000000a1', role: 'user' };
const bob = { id: '0000000000000000000000b2', role: 'user' };
const admin = { id: '0000000000000000000000ff', role: 'admin' };
const isAdmin = ({ user }: AccessArgs) => user?.role === 'admin';
const ownOrAdmin = ({ user }: AccessArgs) => (user ? (user.role === 'admin' ? true : { owner: { eq: user.id } }) : false);

let t: TestApp;
const seen: AccessArgs[] = [];

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'notes',
        softDelete: true,
        fields: { text: { type: 'text', required: true }, owner: { type: 'text' }, tag: { type: 'text' } },
        access: {
          read: ownOrAdmin,
          create: (args) => {
            seen.push(args);
            return args.user !== null;
          },
          update: ownOrAdmin,
          delete: ({ user }) => (user?.role === 'admin' ? true : user ? { owner: { eq: user.id }, tag: { neq: 'locked' } } : false),
        },
      },
      { slug: 'open', fields: { name: { type: 'text' } }, access: { read: () => true, create: isAdmin } },
      { slug: 'plain', fields: { name: { type: 'text' } } },
      {
        slug: 'guarded',
        fields: { name: { type: 'text' } },
        access: {
          read: () => {
            throw new ForbiddenError('Closed for maintenance.');
          },
        },
      },
      { slug: 'secrets', fields: { name: { type: 'text' } }, access: { read: isAdmin } },
      { slug: 'links', fields: { label: { type: 'text' }, secret: { type: 'relationship', relationTo: 'secrets' } }, access: { read: () => true } },
    ],
  });
  await t.connection.collection('notes').insertMany([
    { text: 'ann 1', owner: ann.id, createdAt: new Date(), updatedAt: new Date(), deletedAt: null },
    { text: 'ann locked', owner: ann.id, tag: 'locked', createdAt: new Date(), updatedAt: new Date(), deletedAt: null },
    { text: 'bob 1', owner: bob.id, createdAt: new Date(), updatedAt: new Date(), deletedAt: null },
  ]);
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const noteId = async (text: string) => String((await t.connection.collection('notes').findOne({ text }))!._id);

describe('default access (no rule configured)', () => {
  it('401 problem+json for anonymous callers, 200 for any user', async () => {
    const anon = await request(t.app).get('/api/plain');
    expect(anon.status).toBe(401);
    // No auth collection and no docs.securitySchemes: the router names no scheme it does not accept.
    expect(anon.headers['www-authenticate']).toBeUndefined();
    expect(anon.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(anon.body).toMatchObject({ status: 401, code: 'unauthorized' });
    expect((await request(t.app).post('/api/plain').send({ name: 'x' })).status).toBe(401);
    expect((await request(t.app).get('/api/plain').set(...asUser(bob))).status).toBe(200);
    expect((await request(t.app).post('/api/plain').set(...asUser(bob)).send({ name: 'x' })).status).toBe(201);
  });

  it('API-key scopes: read allows reads only, write allows writes, admin both', async () => {
    const reader = asUser({ ...bob, scopes: ['read'] });
    const writer = asUser({ ...bob, scopes: ['write'] });
    const both = asUser({ ...bob, scopes: ['admin'] });
    expect((await request(t.app).get('/api/plain').set(...reader)).status).toBe(200);
    const denied = await request(t.app).post('/api/plain').set(...reader).send({ name: 'r' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_scope');
    expect(await t.connection.collection('plain').countDocuments({ name: 'r' })).toBe(0);
    expect((await request(t.app).post('/api/plain').set(...writer).send({ name: 'w' })).status).toBe(201);
    expect((await request(t.app).get('/api/plain').set(...writer)).status).toBe(403);
    expect((await request(t.app).post('/api/plain').set(...both).send({ name: 'a' })).status).toBe(201);
    expect((await request(t.app).get('/api/plain').set(...both)).status).toBe(200);
  });

  it('a key without the scope acts as an anonymous caller: never less than no credential', async () => {
    const writer = asUser({ ...bob, scopes: ['write'] });
    // A public read stays public for a write-only key...
    const res = await request(t.app).get('/api/open').set(...writer);
    expect(res.status).toBe(200);
    expect((await request(t.app).get('/api/open')).status).toBe(200);
    // ...and where anonymous callers are refused, the key gets 403 insufficient_scope, not 401.
    const refused = await request(t.app).get('/api/secrets').set(...writer);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    // An anonymous-only create stays refused for a read-only key (the rule needs an admin).
    const reader = asUser({ ...admin, scopes: ['read'] });
    const create = await request(t.app).post('/api/open').set(...reader).send({ name: 'r' });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('insufficient_scope');
  });

  it('the admin scope grants every operation, not the admin role', async () => {
    const bobAdminKey = asUser({ ...bob, scopes: ['admin'] });
    // The open collection's create rule wants the admin role: an admin-scoped key of a plain user is refused.
    const res = await request(t.app).post('/api/open').set(...bobAdminKey).send({ name: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
  });
});

describe('configured rules', () => {
  it('false: 401 without a user, 403 with one', async () => {
    expect((await request(t.app).post('/api/open').send({ name: 'x' })).status).toBe(401);
    const res = await request(t.app).post('/api/open').set(...asUser(bob)).send({ name: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    expect((await request(t.app).post('/api/open').set(...asUser(admin)).send({ name: 'x' })).status).toBe(201);
  });

  it('passes { user, req, data } to the rule', async () => {
    seen.length = 0;
    await request(t.app).post('/api/notes').set(...asUser(ann)).send({ text: 'new', owner: ann.id }).expect(201);
    expect(seen).toHaveLength(1);
    expect(seen[0].user).toMatchObject({ id: ann.id });
    expect(seen[0].data).toEqual({ text: 'new', owner: ann.id });
    expect(seen[0].req?.method).toBe('POST');
  });

  it('a where-constraint limits list and get; records outside it are 404', async () => {
    const list = await request(t.app).get('/api/notes?sort=text').set(...asUser(bob));
    expect(list.body.data.map((n: { text: string }) => n.text)).toEqual(['bob 1']);
    expect(list.body.meta.total).toBe(1);
    const annNote = await noteId('ann 1');
    const res = await request(t.app).get(`/api/notes/${annNote}`).set(...asUser(bob));
    expect(res.status).toBe(404);
    expect((await request(t.app).get(`/api/notes/${annNote}`).set(...asUser(ann))).status).toBe(200);
    const all = await request(t.app).get('/api/notes').set(...asUser(admin));
    expect(all.body.meta.total).toBeGreaterThanOrEqual(3);
  });

  it('the constraint is ANDed with the client where, never replaced by it', async () => {
    const res = await request(t.app).get(`/api/notes?where=${encodeURIComponent(JSON.stringify({ or: [{ owner: { eq: ann.id } }, { owner: { eq: bob.id } }] }))}`).set(...asUser(bob));
    expect(res.body.data.map((n: { owner: string }) => n.owner)).toEqual([bob.id]);
  });

  it('update and delete outside the constraint are 404 and change nothing', async () => {
    const annNote = await noteId('ann 1');
    const patch = await request(t.app).patch(`/api/notes/${annNote}`).set(...asUser(bob)).send({ text: 'hijacked' });
    expect(patch.status).toBe(404);
    const del = await request(t.app).delete(`/api/notes/${annNote}`).set(...asUser(bob));
    expect(del.status).toBe(404);
    const stored = await t.connection.collection('notes').findOne({ _id: new Types.ObjectId(annNote) });
    expect(stored).toMatchObject({ text: 'ann 1', deletedAt: null });
  });

  it('a delete constraint can be narrower than the read one', async () => {
    const locked = await noteId('ann locked');
    expect((await request(t.app).delete(`/api/notes/${locked}`).set(...asUser(ann))).status).toBe(404);
    expect((await request(t.app).get(`/api/notes/${locked}`).set(...asUser(ann))).status).toBe(200);
  });

  it('includeDeleted needs delete access', async () => {
    const res = await request(t.app).get('/api/notes?includeDeleted=true').set(...asUser(ann));
    expect(res.status).toBe(200);
    expect((await request(t.app).get('/api/notes?includeDeleted=true')).status).toBe(401);
  });

  it('an error class thrown by a rule becomes its status', async () => {
    const res = await request(t.app).get('/api/guarded').set(...asUser(admin));
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('Closed for maintenance.');
  });

  it('relationship filters and population honour the related collection read access', async () => {
    const secret = await t.api.local.create('secrets', { name: 'classified' });
    await t.api.local.create('links', { label: 'l1', secret: secret.id });
    const filtered = await request(t.app).get('/api/links?where[secret.name][eq]=classified').set(...asUser(bob));
    expect(filtered.status).toBe(200);
    expect(filtered.body.data).toEqual([]);
    const asAdmin = await request(t.app).get('/api/links?where[secret.name][eq]=classified').set(...asUser(admin));
    expect(asAdmin.body.data.map((l: { label: string }) => l.label)).toEqual(['l1']);

    const populated = await request(t.app).get('/api/links?depth=1').set(...asUser(bob));
    expect(populated.body.data[0].secret).toBe(secret.id);
    const populatedAdmin = await request(t.app).get('/api/links?depth=1').set(...asUser(admin));
    expect(populatedAdmin.body.data[0].secret).toMatchObject({ id: secret.id, name: 'classified' });
  });
});
