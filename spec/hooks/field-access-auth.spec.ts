// Field access on an auth collection's own routes: registration is a create by an anonymous caller (its
// field `create` rules apply, though the collection's create rule does not).
import request from 'supertest';
import type { EmailMessage } from '../../lib';
import type { FieldAccessArgs } from '../../lib/config/hooks';
import { FAST_HASH, GOOD_PASSWORD, SECRET } from '../auth/auth-test-app';
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
