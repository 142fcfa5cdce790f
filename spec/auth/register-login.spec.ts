// Register, login and me over HTTP: the documented response shapes, the password policy listing every
// broken rule, 409 on a taken e-mail, role/verified refused, hashes in the database, never in a response.
import request from 'supertest';
import { hashToken } from '../../lib/util/random-token';
import {
  type AuthTestApp,
  GOOD_PASSWORD,
  PROBLEM,
  bearer,
  createAuthTestApp,
  expectNoSecrets,
  registerUser,
  uniqueEmail,
} from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ auth: { password: { minLength: 10, requireUppercase: true, requireNumbers: true, requireSymbols: true } } });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const users = () => t.connection.collection('users');
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /users/register', () => {
  it('201 { user: {id,email,name}, accessToken, refreshToken, message }; password and refresh token stored hashed', async () => {
    const email = uniqueEmail();
    const res = await request(t.app).post('/api/users/register').send({ email, password: GOOD_PASSWORD, name: 'Ann' });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({
      user: { id: expect.stringMatching(/^[0-9a-f]{24}$/), email, name: 'Ann' },
      accessToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
      message: expect.any(String),
    });
    expect(Object.keys(res.body)).toEqual(['user', 'accessToken', 'refreshToken', 'message']);

    const stored = await users().findOne({ email });
    expect(stored).toMatchObject({ email, name: 'Ann', role: 'user', verified: false });
    expect(stored?.password).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(JSON.stringify(stored)).not.toContain(GOOD_PASSWORD);

    const tokens = await t.connection.collection('users_refresh_tokens').find({ userId: stored?._id }).toArray();
    expect(tokens).toHaveLength(1);
    expect(tokens[0].tokenHash).toBe(hashToken(res.body.refreshToken));
    expect(JSON.stringify(tokens)).not.toContain(res.body.refreshToken);
  });

  it('normalizes the e-mail and answers name null when none is given', async () => {
    const email = uniqueEmail();
    const res = await request(t.app).post('/api/users/register').send({ email: `  ${email.toUpperCase()} `, password: GOOD_PASSWORD });
    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({ id: expect.any(String), email, name: null });
  });

  it('409 for an e-mail already taken (in any letter case), naming the field, not the value', async () => {
    const { email } = await registerUser(t);
    const res = await request(t.app).post('/api/users/register').send({ email: email.toUpperCase(), password: GOOD_PASSWORD });
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ code: 'unique_conflict', errors: [{ field: 'email', code: 'unique' }] });
    expect(JSON.stringify(res.body)).not.toContain(email);
    expect(await users().countDocuments({ email })).toBe(1);
  });

  it('400 for an invalid e-mail', async () => {
    const res = await request(t.app).post('/api/users/register').send({ email: 'not-an-email', password: GOOD_PASSWORD });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'email', code: 'invalid_email' })]);
  });

  it('400 for a weak password, listing every broken rule (and the other field errors too)', async () => {
    const before = await users().countDocuments();
    const res = await request(t.app).post('/api/users/register').send({ email: uniqueEmail(), password: 'weak' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(['too_short', 'missing_uppercase', 'missing_number', 'missing_symbol']);
    expect(res.body.errors.every((e: { field: string }) => e.field === 'password')).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain('"weak"');

    const both = await request(t.app).post('/api/users/register').send({ email: 'bad', password: 'weak' });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e: { field: string }) => e.field)).toEqual(['email', 'password', 'password', 'password', 'password']);
    expect(await users().countDocuments()).toBe(before);
  });

  it('400 naming every missing field', async () => {
    const res = await request(t.app).post('/api/users/register').send({});
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'email', code: 'required' }),
        expect.objectContaining({ field: 'password', code: 'required' }),
      ]),
    );
  });

  it('403 when the client sets its own role or verified flag; nothing is written', async () => {
    const before = await users().countDocuments();
    for (const extra of [{ role: 'admin' }, { verified: true }, { role: 'user', verified: false }]) {
      const res = await request(t.app).post('/api/users/register').send({ email: uniqueEmail(), password: GOOD_PASSWORD, ...extra });
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.code).toBe('forbidden_field');
    }
    expect(await users().countDocuments()).toBe(before);
  });

  it('400 unknown field for hidden token fields and fields that do not exist', async () => {
    for (const field of ['resetToken', 'verificationToken', 'resetExpiry', 'nickname']) {
      const res = await request(t.app).post('/api/users/register').send({ email: uniqueEmail(), password: GOOD_PASSWORD, [field]: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field, code: 'unknown_field' })]);
    }
  });

  it('accepts the host-defined fields of the collection', async () => {
    const res = await request(t.app).post('/api/users/register').send({ email: uniqueEmail(), password: GOOD_PASSWORD, bio: 'Hi' });
    expect(res.status).toBe(201);
    expect((await users().findOne({ email: res.body.user.email }))?.bio).toBe('Hi');
  });

  it('415 for a non-JSON body, 400 for malformed JSON', async () => {
    const form = await request(t.app).post('/api/users/register').set('Content-Type', 'application/x-www-form-urlencoded').send('email=a@b.co&password=x');
    expect(form.status).toBe(415);
    const broken = await request(t.app).post('/api/users/register').set('Content-Type', 'application/json').send('{"email":');
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('malformed_body');
  });
});

describe('POST /users/login', () => {
  it('200 { user, accessToken, refreshToken, token, expiresIn }: the full record without hidden fields', async () => {
    const registered = await registerUser(t, { bio: 'About me' });
    const res = await request(t.app).post('/api/users/login').send({ email: registered.email.toUpperCase(), password: registered.password });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['user', 'accessToken', 'refreshToken', 'expiresIn', 'token']);
    expect(res.body.token).toBe(res.body.accessToken);
    expect(res.body.expiresIn).toBe(900);
    expect(res.body.user).toEqual({
      id: registered.id,
      email: registered.email,
      name: 'Test User',
      role: 'user',
      verified: false,
      bio: 'About me',
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    expectNoSecrets(res.body, [registered.password]);
    // Each login is a new session (its own refresh-token family).
    expect(res.body.refreshToken).not.toBe(registered.refreshToken);
    expect(await t.connection.collection('users_refresh_tokens').countDocuments({ tokenHash: hashToken(res.body.refreshToken) })).toBe(1);
  });

  it('answers an unknown e-mail and a wrong password exactly alike (401)', async () => {
    const registered = await registerUser(t);
    const wrong = await request(t.app).post('/api/users/login').send({ email: registered.email, password: 'Wrong-passw0rd!' });
    const unknown = await request(t.app).post('/api/users/login').send({ email: uniqueEmail('nobody'), password: 'Wrong-passw0rd!' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ code: 'invalid_credentials', detail: 'Invalid e-mail or password.' });
  });

  it('400 for missing or non-string credentials, 400 for unknown body fields', async () => {
    const missing = await request(t.app).post('/api/users/login').send({ email: 'a@example.com' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'required' })]);
    const typed = await request(t.app).post('/api/users/login').send({ email: { $ne: null }, password: { $ne: null } });
    expect(typed.status).toBe(400);
    expect(typed.body.errors.map((e: { code: string }) => e.code)).toEqual(['invalid_type', 'invalid_type']);
    const extra = await request(t.app).post('/api/users/login').send({ email: 'a@example.com', password: 'x', remember: true });
    expect(extra.status).toBe(400);
    expect(extra.body.errors).toEqual([expect.objectContaining({ field: 'remember', code: 'unknown_field' })]);
    const empty = await request(t.app).post('/api/users/login');
    expect(empty.status).toBe(400);
  });
});

describe('GET /users/me', () => {
  it('returns the current user record for an access token, without hidden fields', async () => {
    const registered = await registerUser(t);
    const res = await request(t.app).get('/api/users/me').set(...bearer(registered.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: registered.id, email: registered.email, role: 'user', verified: false });
    expectNoSecrets(res.body, [registered.password]);
  });

  it('401 with WWW-Authenticate: Bearer without credentials', async () => {
    const res = await request(t.app).get('/api/users/me');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.headers['content-type']).toMatch(PROBLEM);
  });

  it('404 for a host user that is not a record of this collection', async () => {
    const res = await request(t.app).get('/api/users/me').set('X-Test-User', JSON.stringify({ id: 'host-7', role: 'user' }));
    expect(res.status).toBe(404);
  });

  it('lets the access token authenticate other collections (default access: authenticated)', async () => {
    const registered = await registerUser(t);
    const created = await request(t.app).post('/api/posts').set(...bearer(registered.accessToken)).send({ title: 'Mine', owner: registered.id });
    expect(created.status).toBe(201);
    expect((await request(t.app).get('/api/posts').set(...bearer(registered.accessToken))).status).toBe(200);
    expect((await request(t.app).get('/api/posts')).status).toBe(401);
  });
});
