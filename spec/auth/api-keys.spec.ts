// API keys over HTTP: created once in the clear, stored hashed, listed without keys, revoked by id;
// presented as Bearer ck_... or X-API-Key; scopes restrict (read vs write); expired/revoked -> 401.
import { Types } from 'mongoose';
import request from 'supertest';
import type { AuthUser } from '../../lib';
import { hashToken } from '../../lib/util/random-token';
import { type AuthTestApp, type Registered, PROBLEM, bearer, createAuthTestApp, expectNoSecrets, registerAdmin, registerUser } from './auth-test-app';

let t: AuthTestApp;
const seen: Array<AuthUser | null> = [];
beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [
      {
        slug: 'audits',
        fields: { note: { type: 'text' } },
        // Records the user access rules receive, to check what an API key's user carries.
        access: { read: ({ user }) => (seen.push(user), true) },
      },
    ],
  });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const apiKeys = () => t.connection.collection('users_api_keys');

async function createKey(user: Registered, body: Record<string, unknown> = { name: 'ci' }): Promise<request.Response> {
  return request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send(body);
}

function expect401(res: request.Response): void {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Bearer');
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body.code).toBe('invalid_api_key');
}

describe('POST /users/api-keys', () => {
  it('201 { apiKey: { id, name, scopes, expiresAt, createdAt, key } }; only the hash is stored', async () => {
    const user = await registerUser(t);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await createKey(user, { name: 'deploy bot', scopes: ['read', 'write'], expiresAt });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      apiKey: { id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'deploy bot', scopes: ['read', 'write'], expiresAt, createdAt: expect.any(String), key: expect.stringMatching(/^ck_[\w-]{43}$/) },
    });
    expect(Object.keys(res.body.apiKey)).toEqual(['id', 'name', 'scopes', 'expiresAt', 'createdAt', 'key']);
    const stored = await apiKeys().findOne({ _id: new Types.ObjectId(res.body.apiKey.id) });
    expect(stored).toMatchObject({ keyHash: hashToken(res.body.apiKey.key), name: 'deploy bot', scopes: ['read', 'write'], lastUsedAt: null });
    expect(String(stored?.userId)).toBe(user.id);
    expect(JSON.stringify(stored)).not.toContain(res.body.apiKey.key);
  });

  it('grants every scope when scopes are omitted, and no expiry when none is given', async () => {
    const res = await createKey(await registerUser(t));
    expect(res.body.apiKey).toMatchObject({ scopes: ['read', 'write', 'admin'], expiresAt: null });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['unknown scope', { name: 'k', scopes: ['read', 'delete'] }, 'scopes', 'invalid_scope'],
    ['empty scopes', { name: 'k', scopes: [] }, 'scopes', 'invalid_type'],
    ['scopes not an array', { name: 'k', scopes: 'read' }, 'scopes', 'invalid_type'],
    ['past expiry', { name: 'k', expiresAt: '2000-01-01T00:00:00.000Z' }, 'expiresAt', 'in_the_past'],
    ['unparseable expiry', { name: 'k', expiresAt: 'tomorrow' }, 'expiresAt', 'invalid_date'],
    ['missing name', { scopes: ['read'] }, 'name', 'required'],
    ['blank name', { name: '   ' }, 'name', 'required'],
    ['unknown field', { name: 'k', userId: '0123456789abcdef01234567' }, 'userId', 'unknown_field'],
  ])('400 for %s, nothing stored', async (_name, body, field, code) => {
    const user = await registerUser(t);
    const res = await createKey(user, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ field, code }));
    expect(await apiKeys().countDocuments({ userId: new Types.ObjectId(user.id) })).toBe(0);
  });

  it('401 without credentials; 403 with an API key (keys need a login to manage)', async () => {
    const user = await registerUser(t);
    const key = (await createKey(user)).body.apiKey.key;
    expect((await request(t.app).post('/api/users/api-keys').send({ name: 'x' })).status).toBe(401);
    for (const res of [
      await request(t.app).post('/api/users/api-keys').set(...bearer(key)).send({ name: 'x' }),
      await request(t.app).get('/api/users/api-keys').set('X-API-Key', key),
      await request(t.app).post('/api/users/logout-all').set('X-API-Key', key),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('access_token_required');
    }
  });
});

describe('GET and DELETE /users/api-keys', () => {
  it('lists only the caller’s keys, newest first, never the key or its hash', async () => {
    const user = await registerUser(t);
    const other = await registerUser(t);
    const first = await createKey(user, { name: 'first' });
    const second = await createKey(user, { name: 'second', scopes: ['read'] });
    await createKey(other, { name: 'not yours' });
    const res = await request(t.app).get('/api/users/api-keys').set(...bearer(user.accessToken));
    expect(res.status).toBe(200);
    expect(res.body.apiKeys.map((k: { name: string }) => k.name)).toEqual(['second', 'first']);
    expect(res.body.apiKeys[0]).toEqual({ id: second.body.apiKey.id, name: 'second', scopes: ['read'], expiresAt: null, createdAt: expect.any(String), lastUsedAt: null });
    expectNoSecrets(res.body, [first.body.apiKey.key, second.body.apiKey.key, hashToken(first.body.apiKey.key)]);
    expect(JSON.stringify(res.body)).not.toMatch(/"key(Hash)?":/);
  });

  it('DELETE /:id revokes one of the caller’s keys: { deleted: true }; the key then answers 401', async () => {
    const user = await registerUser(t);
    const created = (await createKey(user)).body.apiKey;
    expect((await request(t.app).get('/api/posts').set('X-API-Key', created.key)).status).toBe(200);
    const res = await request(t.app).delete(`/api/users/api-keys/${created.id}`).set(...bearer(user.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expect(await apiKeys().countDocuments({ _id: new Types.ObjectId(created.id) })).toBe(0);
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', created.key));
  });

  it('404 for another user’s key, an unknown id and a malformed id; the other key survives', async () => {
    const owner = await registerUser(t);
    const intruder = await registerUser(t);
    const created = (await createKey(owner)).body.apiKey;
    for (const id of [created.id, new Types.ObjectId().toHexString(), 'not-an-id']) {
      const res = await request(t.app).delete(`/api/users/api-keys/${id}`).set(...bearer(intruder.accessToken));
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(PROBLEM);
    }
    expect(await apiKeys().countDocuments({ _id: new Types.ObjectId(created.id) })).toBe(1);
  });
});

describe('authenticating with an API key', () => {
  it('works as Bearer ck_... and as X-API-Key; lastUsedAt is recorded', async () => {
    const user = await registerUser(t);
    const created = (await createKey(user)).body.apiKey;
    expect((await request(t.app).get('/api/posts').set(...bearer(created.key))).status).toBe(200);
    expect((await request(t.app).get('/api/posts').set('X-API-Key', created.key)).status).toBe(200);
    const stored = await apiKeys().findOne({ _id: new Types.ObjectId(created.id) });
    expect(stored?.lastUsedAt).toBeInstanceOf(Date);
    expect(Date.now() - (stored?.lastUsedAt as Date).getTime()).toBeLessThan(10_000);
    const me = await request(t.app).get('/api/users/me').set('X-API-Key', created.key);
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });

  it('the user behind a key carries its scopes (and a JWT user carries none)', async () => {
    const user = await registerUser(t);
    const key = (await createKey(user, { name: 'reader', scopes: ['read'] })).body.apiKey.key;
    seen.length = 0;
    await request(t.app).get('/api/audits').set('X-API-Key', key).expect(200);
    await request(t.app).get('/api/audits').set(...bearer(user.accessToken)).expect(200);
    expect(seen[0]).toMatchObject({ id: user.id, email: user.email, collection: 'users', scopes: ['read'] });
    expect(seen[1]).toMatchObject({ id: user.id, collection: 'users' });
    expect(seen[1]).not.toHaveProperty('scopes');
    for (const u of seen) expectNoSecrets(u);
  });

  it('a read-scoped key can read but gets 403 writing; a write-scoped key can write', async () => {
    const user = await registerUser(t);
    const read = (await createKey(user, { name: 'r', scopes: ['read'] })).body.apiKey.key;
    const write = (await createKey(user, { name: 'w', scopes: ['write'] })).body.apiKey.key;
    expect((await request(t.app).get('/api/posts').set(...bearer(read))).status).toBe(200);
    const denied = await request(t.app).post('/api/posts').set(...bearer(read)).send({ title: 'Nope' });
    expect(denied.status).toBe(403);
    expect(denied.headers['content-type']).toMatch(PROBLEM);
    expect(denied.body.code).toBe('insufficient_scope');
    expect(await t.connection.collection('posts').countDocuments({ title: 'Nope' })).toBe(0);
    const created = await request(t.app).post('/api/posts').set('X-API-Key', write).send({ title: 'Via key' });
    expect(created.status).toBe(201);
    // write without read: reading is refused.
    expect((await request(t.app).get('/api/posts').set('X-API-Key', write)).status).toBe(403);
  });

  it('401 for an expired, an unknown and an empty key, even when the host also set req.user', async () => {
    const user = await registerUser(t);
    const created = (await createKey(user, { name: 'short-lived', expiresAt: new Date(Date.now() + 60_000).toISOString() })).body.apiKey;
    await apiKeys().updateOne({ _id: new Types.ObjectId(created.id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const host = ['X-Test-User', JSON.stringify({ id: user.id, role: 'admin' })] as const;
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', created.key).set(...host));
    expect401(await request(t.app).get('/api/posts').set(...bearer(created.key)));
    expect401(await request(t.app).get('/api/posts').set(...bearer('ck_unknownunknownunknownunknownunknownunknown0')));
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', ''));
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', 'not-even-a-ck-key'));
    // Checking an expired key does not count as using it.
    expect((await apiKeys().findOne({ _id: new Types.ObjectId(created.id) }))?.lastUsedAt).toBeNull();
  });

  it('a key stops working as soon as its user is deleted through the API', async () => {
    const user = await registerUser(t);
    const admin = await registerAdmin(t);
    const key = (await createKey(user)).body.apiKey.key;
    expect((await request(t.app).get('/api/posts').set('X-API-Key', key)).status).toBe(200);
    await request(t.app).delete(`/api/users/${user.id}`).set(...bearer(admin.accessToken)).expect(200);
    expect(await t.connection.collection('users').countDocuments({ _id: new Types.ObjectId(user.id) })).toBe(0);
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', key));
  });
});

describe('scopes on the account routes', () => {
  it('GET /users/me needs the read scope', async () => {
    const user = await registerUser(t);
    const writer = (await createKey(user, { name: 'w', scopes: ['write'] })).body.apiKey.key;
    const reader = (await createKey(user, { name: 'r', scopes: ['read'] })).body.apiKey.key;
    const refused = await request(t.app).get('/api/users/me').set('X-API-Key', writer);
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(PROBLEM);
    expect(refused.body.code).toBe('insufficient_scope');
    const allowed = await request(t.app).get('/api/users/me').set('X-API-Key', reader);
    expect(allowed.status).toBe(200);
    expect(allowed.body.id).toBe(user.id);
  });

  it('POST /users/send-verification (for the caller) needs the write scope', async () => {
    const user = await registerUser(t);
    const reader = (await createKey(user, { name: 'r', scopes: ['read'] })).body.apiKey.key;
    const writer = (await createKey(user, { name: 'w', scopes: ['write'] })).body.apiKey.key;
    const before = await t.connection.collection('users').findOne({ email: user.email });
    const refused = await request(t.app).post('/api/users/send-verification').set('X-API-Key', reader);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    // Nothing was issued: the stored verification token is unchanged.
    const after = await t.connection.collection('users').findOne({ email: user.email });
    expect(after?.verificationToken).toEqual(before?.verificationToken);
    const sent = await request(t.app).post('/api/users/send-verification').set('X-API-Key', writer);
    expect(sent.status).toBe(200);
  });
});
