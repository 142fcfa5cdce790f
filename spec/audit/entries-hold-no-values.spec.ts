// No entry holds a value: after registering, logging in, refreshing, resetting and changing a password,
// creating an API key and writing through it, and writing records with telling values, every stored entry is
// searched for each value, password, token, key and hash the flows wrote or handed out: none is found, and no
// hidden field is named.
import request from 'supertest';
import { hashToken } from '../../lib/util/random-token';
import { type AuthTestApp, HIDDEN_AUTH_FIELDS, bearer, createAuthTestApp, registerUser, tokenFromMail } from '../auth/auth-test-app';
import { pngBytes } from '../uploads/upload-helpers';

describe('audit entries hold no values', () => {
  let t: AuthTestApp;
  beforeAll(async () => {
    t = await createAuthTestApp({ extra: { audit: {}, uploads: {} } });
  });
  afterAll(async () => t.close());

  it('greps every stored entry for what was written and finds none of it', async () => {
    const secrets: string[] = [];
    const user = await registerUser(t, { bio: 'BIO-VALUE-7f3e' });
    secrets.push(user.password, user.accessToken, user.refreshToken, 'BIO-VALUE-7f3e');

    const login = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }).expect(200);
    secrets.push(login.body.accessToken, login.body.refreshToken);
    const refreshed = await request(t.app).post('/api/users/refresh').send({ refreshToken: login.body.refreshToken }).expect(200);
    secrets.push(refreshed.body.accessToken, refreshed.body.refreshToken);

    await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
    const resetToken = tokenFromMail(t.mails, user.email, /Reset/);
    const resetPassword = 'Res3t-Password-Q!';
    await request(t.app).post('/api/users/reset-password').send({ token: resetToken, password: resetPassword }).expect(200);
    secrets.push(resetToken, resetPassword);

    const again = await request(t.app).post('/api/users/login').send({ email: user.email, password: resetPassword }).expect(200);
    const changed = 'Chang3d-Password-Z!';
    await request(t.app).post('/api/users/change-password').set(...bearer(again.body.accessToken)).send({ currentPassword: resetPassword, password: changed }).expect(200);
    secrets.push(again.body.accessToken, changed);

    const fresh = await request(t.app).post('/api/users/login').send({ email: user.email, password: changed }).expect(200);
    const key = await request(t.app).post('/api/users/api-keys').set(...bearer(fresh.body.accessToken)).send({ name: 'ci', scopes: ['read', 'write'] }).expect(201);
    secrets.push(fresh.body.accessToken, key.body.apiKey.key);

    const post = await request(t.app).post('/api/posts').set('X-API-Key', key.body.apiKey.key).send({ title: 'TITLE-VALUE-91ab', owner: user.id }).expect(201);
    await request(t.app).patch(`/api/posts/${post.body.id}`).set('X-API-Key', key.body.apiKey.key).send({ title: 'TITLE-VALUE-second' }).expect(200);
    await request(t.app).patch(`/api/users/${user.id}`).set(...bearer(fresh.body.accessToken)).send({ bio: 'BIO-VALUE-other' }).expect(200);
    secrets.push('TITLE-VALUE-91ab', 'TITLE-VALUE-second', 'BIO-VALUE-other');

    const upload = await request(t.app).post('/api/upload').set(...bearer(fresh.body.accessToken)).field('alt', 'ALT-VALUE-55').attach('file', pngBytes(), { filename: 'pic.png', contentType: 'image/png' }).expect(201);
    await request(t.app).delete(`/api/uploads/${upload.body.filename}`).set(...bearer(fresh.body.accessToken)).expect(200);
    secrets.push('ALT-VALUE-55');

    await t.api.audit?.find({ limit: 1 });
    const rows = await t.connection.collection('content-router.audit').find({}).toArray();
    const text = JSON.stringify(rows);
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(hashToken(secret));
    }
    expect(text).not.toContain('scrypt$');
    expect(text).not.toContain(user.email);
    for (const row of rows) for (const name of row.changedFields ?? []) expect(HIDDEN_AUTH_FIELDS).not.toContain(name);

    // What was recorded, for the record: the writes, by whom.
    const byAction = (action: string) => rows.filter((row) => row.action === action);
    expect(byAction('create').map((row) => row.resource.collection).sort()).toEqual(['posts', 'users']);
    const keyed = rows.find((row) => row.action === 'create' && row.resource.collection === 'posts');
    expect(keyed?.actor).toEqual({ type: 'apiKey', id: user.id, collection: 'users', apiKeyId: expect.any(String), scopes: ['read', 'write'] });
    expect(keyed?.changedFields).toEqual(expect.arrayContaining(['title', 'owner']));
    expect(byAction('upload')).toHaveLength(1);
    expect(byAction('upload.delete')).toHaveLength(1);
    expect(byAction('upload')[0].resource).toEqual({ collection: '_uploads', id: expect.any(String) });
  });
});
