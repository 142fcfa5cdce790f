// Every write auth's flows make to a user record (change-password, forgot/reset-password, send-verification,
// verify-email, register's verification token, the hash upgrade on login) goes through the update operation
// as a named system actor: the collection's beforeChange and afterChange hooks run for it, it moves the
// record's ETag (a stale If-Match is a 412), and of two requests spending one token exactly one writes.
import request from 'supertest';
import { type AfterChangeArgs, type BeforeChangeArgs, type CollectionConfig, ForbiddenError } from '../../lib';
import { hashPassword } from '../../lib/auth/password-hash';
import { hashToken } from '../../lib/util/random-token';
import { type AuthTestApp, FAST_HASH, GOOD_PASSWORD, bearer, createAuthTestApp, tokenFromMail, uniqueEmail } from './auth-test-app';

/** One hook call as the spec keeps it: never the values, only what the hooks were told. */
interface Seen {
  hook: 'beforeChange' | 'afterChange';
  operation: string;
  id?: string;
  actor?: string;
  user: unknown;
  dataKeys: string[];
}

const seen: Seen[] = [];
const keep = (hook: Seen['hook'], args: BeforeChangeArgs | AfterChangeArgs) => {
  seen.push({ hook, operation: args.operation, id: args.id, actor: args.actor?.name, user: args.user, dataKeys: Object.keys(args.data).sort() });
};

const MEMBERS: CollectionConfig = {
  slug: 'members',
  auth: true,
  fields: { nickname: { type: 'text' } },
  hooks: {
    beforeChange: [(args) => void keep('beforeChange', args)],
    afterChange: [(args) => void keep('afterChange', args)],
  },
};

/** A host hook written before auth's flows ran hooks: it refuses every update without a user. */
const GUARDED: CollectionConfig = {
  slug: 'guarded',
  auth: true,
  fields: {},
  hooks: {
    beforeChange: [({ operation, user }) => {
      if (operation === 'update' && !user) throw new ForbiddenError('Log in to change an account.');
    }],
  },
};

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ collections: [MEMBERS, GUARDED] });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

const ADMIN = { 'X-Test-User': JSON.stringify({ id: '0000000000000000000000ff', role: 'admin' }) };
const NEW_PASSWORD = 'N3w-Secret-Phrase!';

async function member(): Promise<{ id: string; email: string; accessToken: string; refreshToken: string }> {
  const email = uniqueEmail('member');
  const res = await request(t.app).post('/api/members/register').send({ email, password: GOOD_PASSWORD, nickname: 'neo' });
  expect(res.status).toBe(201);
  return { id: res.body.user.id, email, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken };
}

/** The hook calls of one record since `from`. */
const callsOf = (id: string, from: number) => seen.slice(from).filter((call) => call.id === id);

/** What the afterChange hooks of one system write were told. */
function systemWrite(name: string, dataKeys: string[]) {
  return { hook: 'afterChange', operation: 'update', actor: name, user: null, dataKeys };
}

describe('auth flows run the collection hooks, as a named system actor', () => {
  it('register: the record and its first verification token are one create', async () => {
    const from = seen.length;
    const { id } = await member();
    expect(seen.slice(from).filter((call) => call.hook === 'afterChange' && call.id === id)).toEqual([
      { hook: 'afterChange', operation: 'create', id, actor: 'auth.register', user: null, dataKeys: ['email', 'nickname', 'verificationExpiry', 'verificationToken'] },
    ]);
  });

  it('register: a body naming a hidden field is still a 400 unknown field, as if it did not exist', async () => {
    const res = await request(t.app).post('/api/members/register').send({ email: uniqueEmail('sly'), password: GOOD_PASSWORD, verificationToken: 'mine', resetToken: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]).sort()).toEqual([['resetToken', 'unknown_field'], ['verificationToken', 'unknown_field']]);
  });

  it('change-password: before- and afterChange see the write; afterChange never sees the password as sent', async () => {
    const user = await member();
    const from = seen.length;
    await request(t.app).post('/api/members/change-password').set(...bearer(user.accessToken)).send({ currentPassword: GOOD_PASSWORD, password: NEW_PASSWORD }).expect(200);
    expect(callsOf(user.id, from)).toEqual([
      { hook: 'beforeChange', operation: 'update', id: user.id, actor: 'auth.change-password', user: null, dataKeys: ['password'] },
      { ...systemWrite('auth.change-password', []), id: user.id },
    ]);
  });

  it('forgot-password and reset-password: the token stored, then the password set and the token spent', async () => {
    const user = await member();
    const from = seen.length;
    await request(t.app).post('/api/members/forgot-password').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    await request(t.app).post('/api/members/reset-password').send({ token, password: NEW_PASSWORD }).expect(200);
    expect(callsOf(user.id, from).filter((call) => call.hook === 'afterChange')).toEqual([
      { ...systemWrite('auth.request-password-reset', ['resetExpiry', 'resetToken']), id: user.id },
      { ...systemWrite('auth.reset-password', ['resetExpiry', 'resetToken']), id: user.id },
    ]);
  });

  it('send-verification and verify-email: the token stored, then verified set and the token spent', async () => {
    const user = await member();
    const from = seen.length;
    await request(t.app).post('/api/members/send-verification').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Verify/);
    await request(t.app).post('/api/members/verify-email').send({ token }).expect(200);
    expect(callsOf(user.id, from).filter((call) => call.hook === 'afterChange')).toEqual([
      { ...systemWrite('auth.request-verification', ['verificationExpiry', 'verificationToken']), id: user.id },
      { ...systemWrite('auth.verify-email', ['verificationExpiry', 'verificationToken', 'verified']), id: user.id },
    ]);
  });

  it('login: upgrading an old hash is a write the hooks see, and it keeps the user\'s other sessions', async () => {
    const user = await member();
    // As if the hash had been made while the configured cost was another.
    await t.connection.collection('members').updateOne({ email: user.email }, { $set: { password: await hashPassword(GOOD_PASSWORD, { ...FAST_HASH, cost: 2048 }) } });
    const from = seen.length;
    await request(t.app).post('/api/members/login').send({ email: user.email, password: GOOD_PASSWORD }).expect(200);
    expect(callsOf(user.id, from).filter((call) => call.hook === 'afterChange')).toEqual([{ ...systemWrite('auth.rehash-password', []), id: user.id }]);
    const stored = await t.connection.collection('members').findOne({ email: user.email });
    expect(stored?.password).toMatch(/^scrypt\$1024\$/);
    // The session registration started survives: a new hash of the same password ends nobody's session.
    expect((await request(t.app).post('/api/members/refresh').send({ refreshToken: user.refreshToken })).status).toBe(200);
  });
});

describe('auth flows move the record\'s ETag', () => {
  /** The record's ETag as an admin's GET answers it. */
  async function etagOf(id: string): Promise<string> {
    const res = await request(t.app).get(`/api/members/${id}`).set(ADMIN).expect(200);
    return res.headers.etag as string;
  }

  const patchIfMatch = (id: string, etag: string) => request(t.app).patch(`/api/members/${id}`).set(ADMIN).set('If-Match', etag).send({ nickname: 'trinity' });

  it.each([
    ['change-password', async (user: Awaited<ReturnType<typeof member>>) => {
      await request(t.app).post('/api/members/change-password').set(...bearer(user.accessToken)).send({ currentPassword: GOOD_PASSWORD, password: NEW_PASSWORD }).expect(200);
    }],
    ['forgot-password', async (user: Awaited<ReturnType<typeof member>>) => {
      await request(t.app).post('/api/members/forgot-password').send({ email: user.email }).expect(200);
    }],
    ['a login that upgrades the hash', async (user: Awaited<ReturnType<typeof member>>) => {
      await t.connection.collection('members').updateOne({ email: user.email }, { $set: { password: await hashPassword(GOOD_PASSWORD, { ...FAST_HASH, cost: 2048 }) } });
      const stale = await etagOf(user.id);
      await request(t.app).post('/api/members/login').send({ email: user.email, password: GOOD_PASSWORD }).expect(200);
      return stale;
    }],
  ])('a PATCH with the ETag read before %s is a 412', async (_name, flow) => {
    const user = await member();
    const before = await etagOf(user.id);
    const stale = (await flow(user)) ?? before;
    expect((await patchIfMatch(user.id, stale)).status).toBe(412);
    expect((await patchIfMatch(user.id, await etagOf(user.id))).status).toBe(200);
  });
});

describe('single-use tokens stay single-use', () => {
  it('of two resets racing with one token, one sets the password and the other is a 400; afterChange runs once', async () => {
    const user = await member();
    await request(t.app).post('/api/members/forgot-password').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    const from = seen.length;
    const answers = await Promise.all(
      ['F1rst-Racer-Phrase!', 'S3cond-Racer-Phrase!'].map((password) => request(t.app).post('/api/members/reset-password').send({ token, password })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
    expect(answers.find((res) => res.status === 400)?.body.errors).toEqual([expect.objectContaining({ field: 'token', code: 'invalid_token' })]);
    expect(callsOf(user.id, from).filter((call) => call.hook === 'afterChange')).toHaveLength(1);
  });

  it('of two verifications racing with one token, one verifies and the other is a 400', async () => {
    const user = await member();
    const token = tokenFromMail(t.mails, user.email, /Verify/);
    const answers = await Promise.all([1, 2].map(() => request(t.app).post('/api/members/verify-email').send({ token })));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
  });

  it('an expired reset token sets nothing, even though its digest is still stored', async () => {
    const user = await member();
    await request(t.app).post('/api/members/forgot-password').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    await t.connection.collection('members').updateOne({ email: user.email }, { $set: { resetExpiry: new Date(Date.now() - 1000) } });
    const res = await request(t.app).post('/api/members/reset-password').send({ token, password: NEW_PASSWORD });
    expect(res.status).toBe(400);
    expect((await t.connection.collection('members').findOne({ email: user.email }))?.resetToken).toBe(hashToken(token));
  });
});

describe('a hook that refuses a flow\'s write', () => {
  it('refuses the flow; a request by address still answers as for an unknown address, mails nothing and logs why', async () => {
    const email = uniqueEmail('guarded');
    const registered = await request(t.app).post('/api/guarded/register').send({ email, password: GOOD_PASSWORD });
    expect(registered.status).toBe(201);
    const mails = t.mails.length;
    const logs = t.logs.length;
    const known = await request(t.app).post('/api/guarded/forgot-password').send({ email });
    const unknown = await request(t.app).post('/api/guarded/forgot-password').send({ email: uniqueEmail('nobody') });
    expect([known.status, known.body]).toEqual([unknown.status, unknown.body]);
    const verification = await request(t.app).post('/api/guarded/send-verification').send({ email });
    expect(verification.status).toBe(200);
    expect(t.mails.slice(mails)).toEqual([]);
    expect(t.logs.slice(logs).join('\n')).toMatch(/auth\.request-password-reset[\s\S]*Log in to change an account[\s\S]*auth\.request-verification/);
    expect(t.logs.slice(logs).join('\n')).not.toContain(email);
    // A flow the caller waits on hears the refusal.
    const change = await request(t.app).post('/api/guarded/change-password').set(...bearer(registered.body.accessToken)).send({ currentPassword: GOOD_PASSWORD, password: NEW_PASSWORD });
    expect([change.status, change.body.detail]).toEqual([403, 'Log in to change an account.']);
  });
});
