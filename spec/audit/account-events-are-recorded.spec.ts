// Every account event is one audit entry: register, login, a failed login, a lockout, logout, logout-all, a
// refresh token used twice, a password reset (and a reset token that spends nothing), an e-mail verification,
// an API key created or revoked; over HTTP and from the local API. An entry names the account and who acted,
// never an address, a password, a token, a key or a hash: a spec greps every stored entry for them.
import { Types } from 'mongoose';
import request from 'supertest';
import type { AuditEntry } from '../../lib/audit/audit-entry';
import { type AuthTestApp, GOOD_PASSWORD, bearer, createAuthTestApp, registerUser, tokenFromMail, uniqueEmail } from '../auth/auth-test-app';
import { eventually, quietFor } from '../helpers/eventually';

type Entry = Omit<AuditEntry, 'id'>;

/** The actions of account events (stored changes of the users' records are recorded too, as changes). */
const ACCOUNT_ACTIONS = ['register', 'login', 'login.failed', 'lockout', 'logout', 'logout-all', 'refresh.reuse', 'password.reset', 'email.verify', 'apikey.create', 'apikey.revoke'];

let t: AuthTestApp;
/** Every value written or handed out in these specs that no entry may carry. */
const secrets = new Set<string>();

beforeAll(async () => {
  t = await createAuthTestApp({ usersAuth: { maxLoginAttempts: 2, lockTime: '10m' }, extra: { audit: {} } });
});
afterAll(() => t.close());
beforeEach(() => clear());

/** Every entry the specs stored, kept as each spec starts afresh: the last spec greps them all. */
const stored: unknown[] = [];
async function clear(): Promise<void> {
  const audit = t.connection.collection('content-router.audit');
  stored.push(...(await audit.find({}).toArray()));
  await audit.deleteMany({});
}

/** Every account event stored, oldest first. */
async function accountEntries(): Promise<Entry[]> {
  const rows = await t.connection.collection('content-router.audit').find({ action: { $in: ACCOUNT_ACTIONS } }, { projection: { _id: 0 } }).sort({ _id: 1 }).toArray();
  return rows as unknown as Entry[];
}

/**
 * The account events once `count` are stored, checked to stay that many: events are stored after the answer,
 * so the spec waits for them, then lets a moment pass in which a duplicate would show.
 */
async function recorded(count: number): Promise<Entry[]> {
  await eventually(async () => expect(await accountEntries()).toHaveLength(count));
  await quietFor(150);
  const rows = await accountEntries();
  expect(rows).toHaveLength(count);
  return rows;
}

async function registered() {
  const user = await registerUser(t);
  secrets.add(user.password).add(user.accessToken).add(user.refreshToken).add(user.email);
  await recorded(1);
  await clear();
  return user;
}

const account = (id?: string) => ({ collection: 'users', ...(id !== undefined && { id }) });

it('records a registration once: the new account as actor and resource, 201, the request', async () => {
  const email = uniqueEmail();
  secrets.add(email);
  const res = await request(t.app).post('/api/users/register?next=secret-in-query').set('User-Agent', 'spec-agent').send({ email, password: GOOD_PASSWORD }).expect(201);
  secrets.add(res.body.accessToken).add(res.body.refreshToken);
  const [entry] = await recorded(1);
  expect(entry).toEqual({
    at: expect.any(Date),
    action: 'register',
    actor: { type: 'user', id: res.body.user.id, collection: 'users' },
    resource: account(res.body.user.id),
    outcome: { status: 201 },
    request: { id: res.headers['x-request-id'], method: 'POST', path: '/api/users/register', ip: expect.any(String), userAgent: 'spec-agent', origin: 'rest' },
  });
});

it('records a login, and a failed login by an anonymous caller (the account named when the address has one)', async () => {
  const user = await registeredUser();
  const login = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }).expect(200);
  secrets.add(login.body.accessToken).add(login.body.refreshToken);
  await request(t.app).post('/api/users/login').send({ email: user.email, password: 'Wr0ng-password!' }).expect(401);
  const unknown = uniqueEmail('nobody');
  secrets.add(unknown).add('Wr0ng-password!');
  await request(t.app).post('/api/users/login').send({ email: unknown, password: 'Wr0ng-password!' }).expect(401);
  // The wrong guess is forgotten by a login: the next spec's lockout starts from nothing.
  await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }).expect(200);

  const rows = await recorded(4);
  expect(rows.map((row) => [row.action, row.actor, row.resource, row.outcome])).toEqual([
    ['login', { type: 'user', id: user.id, collection: 'users' }, account(user.id), { status: 200 }],
    ['login.failed', { type: 'anonymous' }, account(user.id), { status: 401, code: 'invalid_credentials' }],
    ['login.failed', { type: 'anonymous' }, account(), { status: 401, code: 'invalid_credentials' }],
    ['login', { type: 'user', id: user.id, collection: 'users' }, account(user.id), { status: 200 }],
  ]);
});

it('records the failure that locks an account as a lockout too, and each refused attempt after it', async () => {
  const user = await registeredUser();
  await request(t.app).post('/api/users/login').send({ email: user.email, password: 'Wr0ng-password!' }).expect(401);
  await request(t.app).post('/api/users/login').send({ email: user.email, password: 'Wr0ng-password!' }).expect(401);
  await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }).expect(429);

  const rows = await recorded(4);
  expect(rows.map((row) => [row.action, row.outcome])).toEqual([
    ['login.failed', { status: 401, code: 'invalid_credentials' }],
    ['login.failed', { status: 401, code: 'invalid_credentials' }],
    ['lockout', { status: 429, code: 'account_locked' }],
    ['login.failed', { status: 429, code: 'account_locked' }],
  ]);
  expect(rows[2].resource).toEqual(account(user.id));
});

it('records a refresh token presented twice as refresh.reuse, naming the account whose session it ended', async () => {
  const user = await registeredUser();
  const first = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }).expect(200);
  secrets.add(first.body.accessToken).add(first.body.refreshToken);
  await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }).expect(401);

  const [entry] = await recorded(1);
  expect(entry).toMatchObject({ action: 'refresh.reuse', actor: { type: 'anonymous' }, resource: account(user.id), outcome: { status: 401, code: 'refresh_token_reused' } });
});

it('records logout and logout-all by the account', async () => {
  const user = await registeredUser();
  const other = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }).expect(200);
  secrets.add(other.body.accessToken).add(other.body.refreshToken);
  await recorded(1);
  await clear();
  await request(t.app).post('/api/users/logout').send({ refreshToken: user.refreshToken }).expect(200);
  await request(t.app).post('/api/users/logout-all').set(...bearer(other.body.accessToken)).expect(200);

  const rows = await recorded(2);
  expect(rows.map((row) => [row.action, row.actor, row.resource, row.outcome])).toEqual([
    ['logout', { type: 'user', id: user.id, collection: 'users' }, account(user.id), { status: 200 }],
    ['logout-all', { type: 'user', id: user.id, collection: 'users' }, account(user.id), { status: 200 }],
  ]);
});

it('records a password reset, and a reset token that spends nothing (no account named)', async () => {
  const user = await registeredUser();
  await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
  const token = tokenFromMail(t.mails, user.email, /Reset/);
  secrets.add(token).add('N3w-passw0rd-here');
  await request(t.app).post('/api/users/reset-password').send({ token, password: 'N3w-passw0rd-here' }).expect(200);
  await request(t.app).post('/api/users/reset-password').send({ token, password: 'N3w-passw0rd-here' }).expect(400);

  const rows = await recorded(2);
  expect(rows.map((row) => [row.action, row.actor, row.resource, row.outcome])).toEqual([
    ['password.reset', { type: 'user', id: user.id, collection: 'users' }, account(user.id), { status: 200 }],
    ['password.reset', { type: 'anonymous' }, account(), { status: 400, code: 'validation_error' }],
  ]);
});

it('records an e-mail verification', async () => {
  const user = await registeredUser();
  const token = tokenFromMail(t.mails, user.email, /Verify/);
  secrets.add(token);
  await request(t.app).post('/api/users/verify-email').send({ token }).expect(200);

  const [entry] = await recorded(1);
  expect(entry).toMatchObject({ action: 'email.verify', actor: { type: 'user', id: user.id }, resource: account(user.id), outcome: { status: 200 } });
});

it('records an API key created and revoked by its user, naming the account, never the key', async () => {
  const user = await registeredUser();
  const created = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'ci' }).expect(201);
  secrets.add(created.body.apiKey.key);
  await request(t.app).delete(`/api/users/api-keys/${created.body.apiKey.id}`).set(...bearer(user.accessToken)).expect(200);

  const rows = await recorded(2);
  expect(rows.map((row) => [row.action, row.actor, row.resource, row.outcome])).toEqual([
    ['apikey.create', { type: 'user', id: user.id, collection: 'users' }, account(user.id), { status: 201 }],
    ['apikey.revoke', { type: 'user', id: user.id, collection: 'users' }, account(user.id), { status: 200 }],
  ]);
});

it('records the local API’s account events with origin local and no request', async () => {
  const email = uniqueEmail('local');
  secrets.add(email);
  const { user } = await t.api.auth.register(email, GOOD_PASSWORD);
  const session = await t.api.auth.login(email, GOOD_PASSWORD);
  secrets.add(session.accessToken).add(session.refreshToken);
  await t.api.auth.logout(session.accessToken);

  const rows = await recorded(3);
  expect(rows.map((row) => [row.action, row.resource, row.request])).toEqual([
    ['register', account(user.id), { origin: 'local' }],
    ['login', account(user.id), { origin: 'local' }],
    ['logout', account(user.id), { origin: 'local' }],
  ]);
});

it("is read back by an admin through GET /audit, the account's own audit route and api.audit.find", async () => {
  const user = await registeredUser();
  await request(t.app).post('/api/users/login').send({ email: user.email, password: 'Wr0ng-password!' }).expect(401);
  const admin = await registerUser(t);
  await t.connection.collection('users').updateOne({ _id: new Types.ObjectId(admin.id) }, { $set: { role: 'admin' } });
  secrets.add(admin.password).add(admin.accessToken).add(admin.refreshToken).add(admin.email);
  await recorded(2);

  const where = JSON.stringify({ action: 'login.failed', 'resource.id': user.id });
  const { body } = await request(t.app).get('/api/audit').query({ where }).set(...bearer(admin.accessToken)).expect(200);
  expect(body.data).toEqual([expect.objectContaining({ action: 'login.failed', resource: account(user.id), outcome: { status: 401, code: 'invalid_credentials' } })]);
  // An account has no /users/:id/audit (ambiguous beside /users/api-keys/:id in the document): GET /audit is its.
  await request(t.app).get(`/api/users/${user.id}/audit`).set(...bearer(admin.accessToken)).expect(404);
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the audit log is configured
  const page = await t.api.audit!.find({ where: { action: 'register', 'resource.id': admin.id } });
  expect(page.data).toEqual([expect.objectContaining({ action: 'register', actor: { type: 'user', id: admin.id, collection: 'users' } })]);
  // Not the user's own to read (an admin's, by default).
  await request(t.app).get('/api/audit').set(...bearer(user.accessToken)).expect(403);
});

it('never stores an address, a password, a token, a key or a hash in any entry', async () => {
  await clear();
  const text = JSON.stringify(stored);
  expect(stored.length).toBeGreaterThan(20);
  expect(secrets.size).toBeGreaterThan(10);
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toContain('scrypt$');
  // No key of a value (field names alone may be listed as changed, hidden ones never).
  for (const key of ['"password":', '"resetToken":', '"verificationToken":', '"email":', '"key":', '"token":']) expect(text).not.toContain(key);
  for (const hidden of ['"password"', '"resetToken"', '"verificationToken"', '"resetExpiry"', '"verificationExpiry"']) expect(text).not.toContain(hidden);
});

/** A registered user whose register event is already out of the way. */
function registeredUser() {
  return registered();
}
