// Field access on an auth collection's own routes: registration is a create by an anonymous caller (its
// field `create` rules apply, though the collection's create rule does not), and the account records the
// auth routes answer with (me, login, verify-email) leave out what their reader may not read.
import request from 'supertest';
import type { EmailMessage } from '../../lib';
import type { FieldAccessArgs } from '../../lib/config/hooks';
import { FAST_HASH, GOOD_PASSWORD, SECRET, bearer, tokenFromMail } from '../auth/auth-test-app';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

const adminOnly = ({ user }: FieldAccessArgs) => user?.role === 'admin';

let t: TestApp;
const mails: EmailMessage[] = [];
/** Every body a member (not an admin) received: none may carry an admin-only value. */
const seen: string[] = [];

beforeAll(async () => {
  t = await createTestApp({
    warnings: { unindexedSorts: false },
    auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
    email: { send: (mail: EmailMessage) => void mails.push(mail) },
    collections: [
      {
        slug: 'members',
        auth: true,
        fields: {
          credits: { type: 'number', access: { create: adminOnly, update: adminOnly } },
          internalScore: { type: 'number', access: { read: adminOnly } },
        },
      },
    ],
  });
});

afterAll(async () => {
  await t?.close();
  for (const body of seen) expect(body).not.toContain('internalScore');
});

afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

function members() {
  return t.connection.db!.collection('members');
}

async function register(email: string, extra: Record<string, unknown> = {}): Promise<request.Response> {
  const res = await request(t.app).post('/api/members/register').send({ email, password: GOOD_PASSWORD, ...extra });
  seen.push(res.text);
  return res;
}

describe('registration', () => {
  it('a body setting a field its create rule denies the anonymous registrant is a 403 naming it; nobody is registered', async () => {
    const res = await register('rich@example.com', { credits: 1_000_000 });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual(expect.objectContaining({ code: 'forbidden_field', errors: [{ field: 'credits', message: expect.any(String), code: 'forbidden_field' }] }));
    expect(await members().countDocuments({ email: 'rich@example.com' })).toBe(0);
    expect(mails.filter((mail) => mail.to === 'rich@example.com')).toEqual([]);
  });

  it('a body without it registers', async () => {
    const res = await register('plain@example.com');
    expect(res.status).toBe(201);
    expect(await members().countDocuments({ email: 'plain@example.com' })).toBe(1);
  });
});

describe('account answers', () => {
  beforeAll(async () => {
    // Admin-only values, written by server code (access overridden).
    const { local } = t.api;
    const member = await local.create('members', { email: 'member@example.com', password: GOOD_PASSWORD, internalScore: 7 });
    const admin = await local.create('members', { email: 'admin@example.com', password: GOOD_PASSWORD, internalScore: 99, role: 'admin' });
    expect([member.internalScore, admin.internalScore]).toEqual([7, 99]);
  });

  async function login(email: string): Promise<request.Response> {
    const res = await request(t.app).post('/api/members/login').send({ email, password: GOOD_PASSWORD });
    expect(res.status).toBe(200);
    return res;
  }

  it('login and me leave out a field the member may not read', async () => {
    const res = await login('member@example.com');
    seen.push(res.text);
    expect(res.body.user).toEqual(expect.objectContaining({ email: 'member@example.com' }));
    expect(res.body.user).not.toHaveProperty('internalScore');
    const me = await request(t.app).get('/api/members/me').set(...bearer(res.body.accessToken));
    seen.push(me.text);
    expect(me.status).toBe(200);
    expect(me.body).toEqual(expect.objectContaining({ id: res.body.user.id, email: 'member@example.com' }));
    expect(me.body).not.toHaveProperty('internalScore');
  });

  it('login and me give an admin the field', async () => {
    const res = await login('admin@example.com');
    expect(res.body.user).toEqual(expect.objectContaining({ internalScore: 99 }));
    const me = await request(t.app).get('/api/members/me').set(...bearer(res.body.accessToken));
    expect(me.body).toEqual(expect.objectContaining({ internalScore: 99 }));
  });

  it('verify-email leaves it out of the user it answers with', async () => {
    expect((await register('verify@example.com')).status).toBe(201);
    await members().updateOne({ email: 'verify@example.com' }, { $set: { internalScore: 5 } });
    const token = tokenFromMail(mails, 'verify@example.com', /Verify/);
    const res = await request(t.app).post('/api/members/verify-email').send({ token });
    seen.push(res.text);
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual(expect.objectContaining({ email: 'verify@example.com', verified: true }));
    expect(res.body.user).not.toHaveProperty('internalScore');
  });

  it('api.auth.login answers as the HTTP login does', async () => {
    const result = await t.api.auth.login('member@example.com', GOOD_PASSWORD);
    expect(result.user).toEqual(expect.objectContaining({ email: 'member@example.com' }));
    expect(result.user).not.toHaveProperty('internalScore');
  });
});
