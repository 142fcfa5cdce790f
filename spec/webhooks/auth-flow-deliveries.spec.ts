// What a webhook receiver of an auth collection gets of auth's own writes to a user record: a users.update
// per write, naming no hidden field and carrying no hidden value (no hash, no token, no digest).
import request from 'supertest';
import { hashToken } from '../../lib/util/random-token';
import { type AuthTestApp, createAuthTestApp, registerUser, tokenFromMail } from '../auth/auth-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { until } from '../helpers/eventually';
import { type Received, type Receiver, startReceiver } from './receivers';

const HIDDEN = ['password', 'resetToken', 'resetExpiry', 'verificationToken', 'verificationExpiry'];

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('webhook deliveries of auth flows', () => {
  let t: AuthTestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createAuthTestApp({ extra: { webhooks: { endpoints: [{ url: receiver.url, secret: receiver.secret, events: ['users.update'] }], retry: { delays: [50] } } } });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const updatesOf = (id: string): Received[] => receiver.received.filter((r) => r.verified.ok && (r.verified.payload.data as { id: string }).id === id);

  it('a password reset is delivered as updates naming no hidden field, without the token, its digest or the hash', async () => {
    const user = await registerUser(t);
    await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    await request(t.app).post('/api/users/reset-password').send({ token, password: 'N3w-Secret-Phrase!' }).expect(200);
    // The reset's own delivery: the one whose record no longer has the reset pending shows up last.
    const stored = await t.connection.collection('users').findOne({ email: user.email });
    const after = (stored!.updatedAt as Date).toISOString();
    await until(() => updatesOf(user.id).some((r) => (JSON.parse(r.body) as { data: { doc?: { updatedAt?: string } } }).data.doc?.updatedAt === after), 10_000, 'the reset delivery');
    for (const { body } of updatesOf(user.id)) {
      const { data } = JSON.parse(body) as { data: { updatedFields?: string[] } };
      for (const name of HIDDEN) expect(body).not.toContain(name);
      expect(body).not.toContain('scrypt$');
      expect(body).not.toContain(token);
      expect(body).not.toContain(hashToken(token));
      if (data.updatedFields) expect(data.updatedFields.filter((name) => name !== 'updatedAt')).toEqual([]);
    }
  });
});
