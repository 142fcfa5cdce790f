// Access on an auth collection: users read/update only themselves, admins everything, role/
// verified/password admin-only; hidden fields never returned, filtered, sorted, selected or searched.
import { Types } from 'mongoose';
import request from 'supertest';
import { verifyPassword } from '../../lib/auth/password-hash';
import { describeCollection } from '../../lib/schema/describe-collection';
import {
  type AuthTestApp,
  GOOD_PASSWORD,
  PROBLEM,
  type Registered,
  bearer,
  createAuthTestApp,
  expectNoSecrets,
  registerAdmin,
  registerUser,
  uniqueEmail,
} from './auth-test-app';

let t: AuthTestApp;
let alice: Registered;
let bob: Registered;
let admin: Registered;
beforeAll(async () => {
  t = await createAuthTestApp({ auth: { password: { minLength: 10 } }, extra: { core: { api: { listFormat: 'data' } } } });
  [alice, bob, admin] = await Promise.all([registerUser(t), registerUser(t), registerAdmin(t)]);
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const users = () => t.connection.collection('users');
const stored = (id: string) => users().findOne({ _id: new Types.ObjectId(id) });

describe('a user', () => {
  it('reads only itself: its own record, 404 for another, a list of one', async () => {
    const own = await request(t.app).get(`/api/users/${alice.id}`).set(...bearer(alice.accessToken));
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(alice.id);
    const other = await request(t.app).get(`/api/users/${bob.id}`).set(...bearer(alice.accessToken));
    expect(other.status).toBe(404);
    expect(other.headers['content-type']).toMatch(PROBLEM);
    const list = await request(t.app).get('/api/users').set(...bearer(alice.accessToken));
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: { id: string }) => u.id)).toEqual([alice.id]);
  });

  it('updates itself, but patching another user is a 404 and changes nothing', async () => {
    const own = await request(t.app).patch(`/api/users/${alice.id}`).set(...bearer(alice.accessToken)).send({ name: 'Alice', bio: 'hi' });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: alice.id, name: 'Alice', bio: 'hi' });
    expectNoSecrets(own.body);
    const other = await request(t.app).patch(`/api/users/${bob.id}`).set(...bearer(alice.accessToken)).send({ name: 'Hacked' });
    expect(other.status).toBe(404);
    expect((await stored(bob.id))?.name).toBe('Test User');
  });

  it('403 for changing its own role, verified flag or password (admins only); nothing changes', async () => {
    const before = await stored(alice.id);
    for (const body of [{ role: 'admin' }, { verified: true }, { password: 'A-new-passw0rd' }, { name: 'ok', role: 'admin' }]) {
      const res = await request(t.app).patch(`/api/users/${alice.id}`).set(...bearer(alice.accessToken)).send(body);
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.code).toBe('forbidden_field');
    }
    const after = await stored(alice.id);
    expect(after).toMatchObject({ role: 'user', verified: before?.verified, password: before?.password, name: before?.name });
  });

  it('cannot create or delete users (403), nor set hidden token fields (400)', async () => {
    expect((await request(t.app).post('/api/users').set(...bearer(alice.accessToken)).send({ email: uniqueEmail(), password: GOOD_PASSWORD })).status).toBe(403);
    expect((await request(t.app).delete(`/api/users/${alice.id}`).set(...bearer(alice.accessToken))).status).toBe(403);
    const hidden = await request(t.app).patch(`/api/users/${alice.id}`).set(...bearer(alice.accessToken)).send({ resetToken: 'mine' });
    expect(hidden.status).toBe(400);
    expect(hidden.body.errors).toEqual([expect.objectContaining({ field: 'resetToken', code: 'unknown_field' })]);
  });

  it('anonymous callers get 401 on the collection', async () => {
    for (const res of [await request(t.app).get('/api/users'), await request(t.app).get(`/api/users/${alice.id}`)]) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });
});

describe('an admin', () => {
  it('reads every user and sets role and verified', async () => {
    const list = await request(t.app).get('/api/users?perPage=100').set(...bearer(admin.accessToken));
    expect(list.body.data.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining([alice.id, bob.id, admin.id]));
    for (const user of list.body.data) expectNoSecrets(user);
    const res = await request(t.app).patch(`/api/users/${bob.id}`).set(...bearer(admin.accessToken)).send({ role: 'admin', verified: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role: 'admin', verified: true });
    await request(t.app).patch(`/api/users/${bob.id}`).set(...bearer(admin.accessToken)).send({ role: 'user' }).expect(200);
  });

  it('creates users with a password: policy enforced, stored hashed, never returned', async () => {
    const weak = await request(t.app).post('/api/users').set(...bearer(admin.accessToken)).send({ email: uniqueEmail(), password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'too_short' })]);

    const email = uniqueEmail('made-by-admin');
    const res = await request(t.app).post('/api/users').set(...bearer(admin.accessToken)).send({ email, password: 'Admin-chosen-1', role: 'admin' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email, role: 'admin', verified: false });
    expectNoSecrets(res.body, ['Admin-chosen-1']);
    const row = await users().findOne({ email });
    expect(await verifyPassword('Admin-chosen-1', row?.password)).toBe(true);
    expect((await request(t.app).post('/api/users/login').send({ email, password: 'Admin-chosen-1' })).status).toBe(200);
  });

  it('sets a user’s password through PATCH (hashed) and batch-creates users (each hashed, errors by index)', async () => {
    const target = await registerUser(t);
    await request(t.app).patch(`/api/users/${target.id}`).set(...bearer(admin.accessToken)).send({ password: 'Set-by-admin-9' }).expect(200);
    expect(await verifyPassword('Set-by-admin-9', (await stored(target.id))?.password)).toBe(true);

    const bad = await request(t.app).post('/api/users').set(...bearer(admin.accessToken)).send({ data: [{ email: uniqueEmail(), password: 'Long-enough-1' }, { email: uniqueEmail(), password: 'x' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ index: 1, field: 'password', code: 'too_short' })]);
    const emails = [uniqueEmail('batch'), uniqueEmail('batch')];
    const ok = await request(t.app).post('/api/users').set(...bearer(admin.accessToken)).send({ data: emails.map((email) => ({ email, password: 'Long-enough-1' })) });
    expect(ok.status).toBe(201);
    for (const record of ok.body.data) expectNoSecrets(record, ['Long-enough-1']);
    const rows = await users().find({ email: { $in: emails } }).toArray();
    expect(rows.every((r) => String(r.password).startsWith('scrypt$'))).toBe(true);
  });

  it('deletes users', async () => {
    const doomed = await registerUser(t);
    expect((await request(t.app).delete(`/api/users/${doomed.id}`).set(...bearer(admin.accessToken))).body).toEqual({ deleted: true });
  });
});

describe('hidden fields never leave the server', () => {
  it.each<[string, string]>([
    ['where on password', 'where[password][eq]=x'],
    ['where on resetToken (JSON form)', `where=${encodeURIComponent('{"resetToken":{"exists":true}}')}`],
    ['where on verificationToken', 'where[verificationToken][like]=a'],
    ['filter on password', 'filter=password:x'],
    ['sort on password', 'sort=password'],
    ['sort on resetExpiry', 'sort=-resetExpiry'],
    ['select password', 'fields=id,password'],
    ['OR through password', `where=${encodeURIComponent('{"or":[{"email":{"eq":"a@b.co"}},{"password":{"exists":true}}]}')}`],
  ])('400 "unknown field" for %s, even for an admin', async (_name, query) => {
    const res = await request(t.app).get(`/api/users?${query}`).set(...bearer(admin.accessToken));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(JSON.stringify(res.body)).toMatch(/unknown field/);
  });

  it('search never looks at hidden fields (the default search fields of an auth collection)', () => {
    const descriptor = describeCollection({ slug: 'users', auth: true, fields: { bio: { type: 'text' } } });
    expect(descriptor.searchFields).toEqual(['email', 'name', 'bio']);
    expect(descriptor.fields.password).toMatchObject({ hidden: true, writeOnly: true });
    for (const name of ['verificationToken', 'verificationExpiry', 'resetToken', 'resetExpiry']) {
      expect(descriptor.fields[name]).toMatchObject({ hidden: true });
      expect(descriptor.fields[name].writeOnly).toBeUndefined();
    }
  });

  it('search over HTTP matches visible fields only, never password hashes', async () => {
    const hashes = await request(t.app).get('/api/users?search=scrypt').set(...bearer(admin.accessToken));
    expect(hashes.status).toBe(200);
    expect(hashes.body.data).toEqual([]);
    const byEmail = await request(t.app).get(`/api/users?search=${encodeURIComponent(alice.email)}`).set(...bearer(admin.accessToken));
    expect(byEmail.body.data.map((u: { id: string }) => u.id)).toEqual([alice.id]);
  });

  it('no response of the collection carries a hidden field: get, list (all dialects), me, login, patch', async () => {
    await request(t.app).post('/api/users/forgot-password').send({ email: alice.email }).expect(200);
    const bodies = [
      (await request(t.app).get(`/api/users/${alice.id}`).set(...bearer(admin.accessToken))).body,
      (await request(t.app).get('/api/users?limit=50').set(...bearer(admin.accessToken))).body,
      (await request(t.app).get('/api/users?cursor=').set(...bearer(admin.accessToken))).body,
      (await request(t.app).get('/api/users/me').set(...bearer(alice.accessToken))).body,
      (await request(t.app).post('/api/users/login').send({ email: alice.email, password: alice.password })).body.user,
      (await request(t.app).patch(`/api/users/${alice.id}`).set(...bearer(admin.accessToken)).send({ bio: 'x' })).body,
      (await request(t.app).get(`/api/posts?depth=1`).set(...bearer(admin.accessToken))).body,
    ];
    for (const body of bodies) expectNoSecrets(body, [alice.password]);
  });

  it('populated users obey the users collection’s read access and hide their hidden fields', async () => {
    const post = await request(t.app).post('/api/posts').set(...bearer(admin.accessToken)).send({ title: 'Owned by bob', owner: bob.id });
    const asAlice = await request(t.app).get(`/api/posts/${post.body.id}?depth=1`).set(...bearer(alice.accessToken));
    expect(asAlice.status).toBe(200);
    // Alice may not read bob: the relation stays an id.
    expect(asAlice.body.owner).toBe(bob.id);
    const asAdmin = await request(t.app).get(`/api/posts/${post.body.id}?depth=1`).set(...bearer(admin.accessToken));
    expect(asAdmin.body.owner).toMatchObject({ id: bob.id, email: bob.email });
    expectNoSecrets(asAdmin.body);
  });

  it('filtering posts through a user’s hidden field is refused too', async () => {
    const res = await request(t.app).get('/api/posts?where[owner.password][exists]=true').set(...bearer(admin.accessToken));
    expect(res.status).toBe(400);
  });
});

describe('the host’s req.user with an auth collection', () => {
  it('a host admin (no package token) has admin rights on users', async () => {
    const host = ['X-Test-User', JSON.stringify({ id: 'host-admin', role: 'admin' })] as const;
    const res = await request(t.app).get(`/api/users/${alice.id}`).set(...host);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(alice.id);
  });

  it('a host user whose id is a user record acts as that user', async () => {
    const host = ['X-Test-User', JSON.stringify({ _id: alice.id, role: 'user' })] as const;
    expect((await request(t.app).get(`/api/users/${alice.id}`).set(...host)).status).toBe(200);
    expect((await request(t.app).get(`/api/users/${bob.id}`).set(...host)).status).toBe(404);
    expect((await request(t.app).get('/api/users/me').set(...host)).body.id).toBe(alice.id);
  });

  it('a host user that is no user record may not read users', async () => {
    const host = ['X-Test-User', JSON.stringify({ id: 'host-7', role: 'user' })] as const;
    expect((await request(t.app).get('/api/users').set(...host)).status).toBe(403);
  });
});

describe('the local API', () => {
  it('without a user may create a user with any field; the password is hashed and policy-checked', async () => {
    const email = uniqueEmail('local');
    const record = await t.api.local.create('users', { email, password: 'Local-secret-1', role: 'admin', verified: true });
    expect(record).toMatchObject({ email, role: 'admin', verified: true });
    expectNoSecrets(record, ['Local-secret-1']);
    expect(await verifyPassword('Local-secret-1', (await users().findOne({ email }))?.password)).toBe(true);
    await expect(t.api.local.create('users', { email: uniqueEmail(), password: 'short' })).rejects.toMatchObject({ status: 400 });
  });

  it('with a user applies the same rules as HTTP', async () => {
    const asAlice = { user: { id: alice.id, role: 'user' } };
    await expect(t.api.local.update('users', alice.id, { role: 'admin' }, asAlice)).rejects.toMatchObject({ status: 403 });
    await expect(t.api.local.findById('users', bob.id, asAlice)).rejects.toMatchObject({ status: 404 });
  });
});
