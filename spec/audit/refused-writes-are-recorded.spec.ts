// Every write the router refuses with 401, 403, 409, 412 or 428 is one audit entry, named by the write it
// was (create, update, delete, restore, upload...), with who asked, the record, the status and problem code,
// the request; over REST (a refusal before the operation runs too: a bad credential, a missing If-Match) and
// the local API. A 400 (a malformed request) is not recorded, nor a write the log does not cover.
import request from 'supertest';
import type { AuditEntry } from '../../lib/audit/audit-entry';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { type AuthTestApp, bearer, createAuthTestApp, registerUser } from '../auth/auth-test-app';
import { eventually, quietFor } from '../helpers/eventually';

type Entry = Omit<AuditEntry, 'id'>;

const adminsWrite = {
  read: () => true,
  create: ({ user }: { user: { role?: string } | null }) => user !== null,
  update: ({ user }: { user: { role?: string } | null }) => user?.role === 'admin',
  delete: ({ user }: { user: { role?: string } | null }) => user?.role === 'admin',
};
const host = asUser({ id: 'h1', role: 'editor' });
const admin = asUser({ id: 'a1', role: 'admin' });

let t: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [
      { slug: 'articles', access: adminsWrite, softDelete: true, fields: { title: { type: 'text', required: true }, code: { type: 'text', unique: true } } },
      { slug: 'strict', requireIfMatch: true, access: { read: () => true, create: () => true, update: () => true, delete: () => true }, fields: { title: { type: 'text' } } },
      { slug: 'unlogged', access: { read: () => true, create: () => false }, fields: { title: { type: 'text' } } },
    ],
    extra: {
      globals: [{ slug: 'site', access: { read: () => true, update: ({ user }) => user?.role === 'admin' }, fields: { name: { type: 'text' } } }],
      audit: { collections: ['articles', 'strict', 'site'] },
    },
  });
});
afterAll(() => t.close());
beforeEach(() => t.connection.collection('content-router.audit').deleteMany({}));

/** The refused writes stored, oldest first. */
async function refusals(): Promise<Entry[]> {
  const rows = await t.connection.collection('content-router.audit').find({ 'outcome.status': { $in: [401, 403, 409, 412, 428] } }, { projection: { _id: 0 } }).sort({ _id: 1 }).toArray();
  return rows as unknown as Entry[];
}

/** The refused writes once `count` are stored, checked to stay that many (a duplicate would show meanwhile). */
async function recorded(count: number): Promise<Entry[]> {
  await eventually(async () => expect(await refusals()).toHaveLength(count));
  await quietFor(150);
  const rows = await refusals();
  expect(rows).toHaveLength(count);
  return rows;
}

async function article(title = 'a'): Promise<string> {
  return (await t.api.local.create('articles', { title })).id;
}

it('records a write refused for its credential (401) as the write it was, by nobody, before the operation ran', async () => {
  await request(t.app).post('/api/articles?token=secret-in-query').set(...bearer('not-a-token')).send({ title: 'x' }).expect(401);
  const [entry] = await recorded(1);
  expect(entry).toEqual({
    at: expect.any(Date),
    action: 'create',
    actor: { type: 'anonymous' },
    resource: { collection: 'articles' },
    outcome: { status: 401, code: 'invalid_token' },
    request: { id: expect.any(String), method: 'POST', path: '/api/articles', ip: expect.any(String), origin: 'rest' },
  });
});

it('records an anonymous create refused by the access rule (401) and an update a user may not make (403)', async () => {
  const id = await article();
  await request(t.app).post('/api/articles').send({ title: 'x' }).expect(401);
  await request(t.app).patch(`/api/articles/${id}`).set(...host).send({ title: 'y' }).expect(403);
  await request(t.app).delete(`/api/articles/${id}`).set(...host).expect(403);

  const rows = await recorded(3);
  expect(rows.map((row) => [row.action, row.actor, row.resource, row.outcome.status])).toEqual([
    ['create', { type: 'anonymous' }, { collection: 'articles' }, 401],
    ['update', { type: 'host', id: 'h1' }, { collection: 'articles', id }, 403],
    ['delete', { type: 'host', id: 'h1' }, { collection: 'articles', id }, 403],
  ]);
});

it('records a taken unique value (409)', async () => {
  await t.api.local.create('articles', { title: 'a', code: 'taken' });
  await request(t.app).post('/api/articles').set(...host).send({ title: 'b', code: 'taken' }).expect(409);
  const [entry] = await recorded(1);
  expect(entry).toMatchObject({ action: 'create', actor: { type: 'host', id: 'h1' }, resource: { collection: 'articles' }, outcome: { status: 409 } });
});

it('records a missing If-Match where required (428) and a stale one (412), naming the record', async () => {
  const created = await request(t.app).post('/api/strict').set(...host).send({ title: 'a' }).expect(201);
  const id = created.body.id as string;
  await request(t.app).patch(`/api/strict/${id}`).set(...host).send({ title: 'b' }).expect(428);
  await request(t.app).patch(`/api/strict/${id}`).set(...host).set('If-Match', '"stale"').send({ title: 'b' }).expect(412);

  const rows = await recorded(2);
  expect(rows.map((row) => [row.action, row.actor, row.resource, row.outcome])).toEqual([
    ['update', { type: 'host', id: 'h1' }, { collection: 'strict', id }, { status: 428, code: 'precondition_required' }],
    ['update', { type: 'host', id: 'h1' }, { collection: 'strict', id }, { status: 412, code: 'precondition_failed' }],
  ]);
});

it('records refused bulk writes, a refused restore and a refused global update', async () => {
  const id = await article();
  await t.api.local.delete('articles', id);
  await request(t.app).patch('/api/articles?where={}').set(...host).send({ title: 'z' }).expect(403);
  await request(t.app).post(`/api/articles/${id}/restore`).set(...host).expect(403);
  await request(t.app).patch('/api/globals/site').set(...host).send({ name: 'n' }).expect(403);

  const rows = await recorded(3);
  expect(rows.map((row) => [row.action, row.resource, row.outcome.status])).toEqual([
    ['update', { collection: 'articles' }, 403],
    ['restore', { collection: 'articles', id }, 403],
    ['update', { global: 'site' }, 403],
  ]);
});

it("records a cross-site write riding the host's session (403) as the write it was, before its body is read", async () => {
  const id = await article();
  const crossSite = (test: request.Test) => test.set(...host).set('Origin', 'https://evil.example').set('Sec-Fetch-Site', 'cross-site');
  await crossSite(request(t.app).patch(`/api/articles/${id}`)).send({ title: 'x' }).expect(403);
  await crossSite(request(t.app).post('/api/articles')).send({ title: 'x' }).expect(403);
  await crossSite(request(t.app).patch('/api/globals/site')).send({ name: 'x' }).expect(403);

  const rows = await recorded(3);
  expect(rows.map((row) => [row.action, row.actor, row.resource, row.outcome])).toEqual([
    ['update', { type: 'host', id: 'h1' }, { collection: 'articles', id }, { status: 403, code: 'cross_origin_request' }],
    ['create', { type: 'host', id: 'h1' }, { collection: 'articles' }, { status: 403, code: 'cross_origin_request' }],
    ['update', { type: 'host', id: 'h1' }, { global: 'site' }, { status: 403, code: 'cross_origin_request' }],
  ]);
});

it('records an API key refused for its scope, naming the key', async () => {
  const user = await registerUser(t);
  const key = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'reader', scopes: ['read'] }).expect(201);
  await request(t.app).post('/api/articles').set('X-API-Key', key.body.apiKey.key).send({ title: 'x' }).expect(403);

  const [entry] = await recorded(1);
  expect(entry.actor).toEqual({ type: 'apiKey', id: user.id, collection: 'users', apiKeyId: key.body.apiKey.id, scopes: ['read'] });
  expect(JSON.stringify(entry)).not.toContain(key.body.apiKey.key);
});

it('records a local API write refused to its user, with origin local', async () => {
  const id = await article();
  await expect(t.api.local.update('articles', id, { title: 'y' }, { user: { id: 'h2', role: 'editor' } })).rejects.toMatchObject({ status: 403 });
  const [entry] = await recorded(1);
  expect(entry).toMatchObject({ action: 'update', actor: { type: 'host', id: 'h2' }, resource: { collection: 'articles', id }, outcome: { status: 403 }, request: { origin: 'local' } });
});

it('records nothing for a malformed write (400), an allowed one, or a collection the log does not cover', async () => {
  const id = await article();
  await request(t.app).post('/api/articles').set(...host).send({ title: 7 }).expect(400);
  await request(t.app).patch(`/api/articles/${id}`).set(...admin).send({ title: 'ok' }).expect(200);
  await request(t.app).post('/api/unlogged').set(...host).send({ title: 'x' }).expect(403);
  await quietFor(300);
  expect(await refusals()).toEqual([]);
});

describe('uploads', () => {
  let u: TestApp;
  beforeAll(async () => {
    u = await createTestApp({
      uploads: { access: { read: () => true, create: ({ user }) => user?.role === 'admin', delete: ({ user }) => user?.role === 'admin' } },
      audit: { collections: ['_uploads'] },
    });
  });
  afterAll(() => u.close());

  it('records a refused upload and a refused file delete', async () => {
    const stored = await request(u.app).post('/api/upload').set(...admin).attach('file', Buffer.from('hello'), { filename: 'a.txt', contentType: 'text/plain' }).expect(201);
    const name = String(stored.body.url).split('/').pop();
    await request(u.app).post('/api/upload').set(...host).attach('file', Buffer.from('hello'), { filename: 'b.txt', contentType: 'text/plain' }).expect(403);
    await request(u.app).delete(`/api/uploads/${name}`).set(...host).expect(403);

    await eventually(async () => expect(await u.connection.collection('content-router.audit').countDocuments({ 'outcome.status': 403 })).toBe(2));
    await quietFor(150);
    const rows = await u.connection.collection('content-router.audit').find({ 'outcome.status': 403 }, { projection: { _id: 0 } }).sort({ _id: 1 }).toArray();
    expect(rows.map((row) => [row.action, row.actor, row.resource])).toEqual([
      ['upload', { type: 'host', id: 'h1' }, { collection: '_uploads' }],
      ['upload.delete', { type: 'host', id: 'h1' }, { collection: '_uploads' }],
    ]);
  });
});
