// The auth routes that answer with the caller's own record (login, me, verify-email) pass it through the
// read steps every record takes: read hooks run, and a field the user may not read is not in the answer.
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { type AuthTestApp, GOOD_PASSWORD, createAuthTestApp, uniqueEmail } from './auth-test-app';

const MEMBERS: CollectionConfig = {
  slug: 'members',
  auth: true,
  fields: {
    nickname: { type: 'text' },
    // Only admins read it; a member never sees their own.
    rating: { type: 'number', access: { read: ({ user }) => user?.role === 'admin' } },
  },
  hooks: { afterRead: [({ doc }) => ({ ...doc, greeting: `hello ${String(doc.nickname ?? 'you')}` })] },
};

let t: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp({ collections: [MEMBERS] });
});
afterAll(() => t.close());

async function member(): Promise<{ id: string; email: string; accessToken: string }> {
  const email = uniqueEmail('member');
  const registered = await request(t.app).post('/api/members/register').send({ email, password: GOOD_PASSWORD, nickname: 'neo' });
  expect(registered.status).toBe(201);
  await t.api.local.update('members', registered.body.user.id, { rating: 5 });
  return { id: registered.body.user.id, email, accessToken: registered.body.accessToken };
}

describe('auth routes answer through the read steps', () => {
  it('login: afterRead runs, and the unreadable field is absent', async () => {
    const { email } = await member();
    const res = await request(t.app).post('/api/members/login').send({ email, password: GOOD_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ nickname: 'neo', greeting: 'hello neo' });
    expect(res.body.user).not.toHaveProperty('rating');
    expect(res.body.user).not.toHaveProperty('password');
  });

  it('me: afterRead runs, and the unreadable field is absent', async () => {
    const { accessToken } = await member();
    const res = await request(t.app).get('/api/members/me').set('Authorization', `Bearer ${accessToken}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ nickname: 'neo', greeting: 'hello neo' });
    expect(res.body).not.toHaveProperty('rating');
  });

  it('verify-email: afterRead runs, and the unreadable field is absent', async () => {
    const { email } = await member();
    const mail = t.mails.filter((m) => m.to === email).pop()!;
    const token = /([A-Za-z0-9_-]{20,})/.exec(mail.text)![1];
    const res = await request(t.app).post('/api/members/verify-email').send({ token });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('hello neo');
    expect(JSON.stringify(res.body)).not.toContain('rating');
  });

  it('an admin reading the record sees the field (the rule is per caller)', async () => {
    const { id } = await member();
    const asAdmin = await t.api.local.findById('members', id, { user: { id: '0000000000000000000000ff', role: 'admin' }, overrideAccess: false });
    expect(asAdmin).toMatchObject({ rating: 5, greeting: 'hello neo' });
  });
});
