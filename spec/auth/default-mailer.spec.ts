// Without email.send the router logs that a mail would be sent: never the token, except when
// NODE_ENV is development (so developers can click the link).
import request from 'supertest';
import { withNodeEnv } from '../helpers/node-env';
import { type AuthTestApp, createAuthTestApp, registerUser } from './auth-test-app';

async function resetTokenInDb(t: AuthTestApp, email: string): Promise<string> {
  return String((await t.connection.collection('users').findOne({ email }))?.resetToken);
}

describe('default mailer', () => {
  it.each(['production', 'test'])('NODE_ENV=%s: logs the subject and recipient, never the token or link', async (env) => {
    const t = await withNodeEnv(env, () => createAuthTestApp({ noMailer: true, auth: { resetPasswordUrl: 'https://app.example.com/reset?token={token}' } }));
    try {
      const user = await registerUser(t);
      await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(t.logs).toEqual([
        `content-router: no email.send configured; would send "Verify your e-mail address" to ${user.email}`,
        `content-router: no email.send configured; would send "Reset your password" to ${user.email}`,
      ]);
      expect(t.logs.join('\n')).not.toMatch(/token|https:/);
      expect(await resetTokenInDb(t, user.email)).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await t.close();
    }
  });

  it('NODE_ENV=development: also logs the mail text with the link', async () => {
    const t = await withNodeEnv('development', () => createAuthTestApp({ noMailer: true, auth: { resetPasswordUrl: 'https://app.example.com/reset?token={token}' } }));
    try {
      const user = await registerUser(t);
      await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(t.logs[1]).toMatch(/would send "Reset your password"[\s\S]*https:\/\/app\.example\.com\/reset\?token=[\w-]{43}/);
    } finally {
      await t.close();
    }
  });

  it('a failing email.send is logged without the mail, and the flows still answer', async () => {
    const t = await createAuthTestApp({
      send: async (mail) => {
        throw new Error(`SMTP refused: ${mail.text}`);
      },
    });
    try {
      const user = await registerUser(t);
      const res = await request(t.app).post('/api/users/forgot-password').send({ email: user.email });
      expect(res.status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(t.logs).toEqual([
        'content-router: sending the "Verify your e-mail address" e-mail failed (Error)',
        'content-router: sending the "Reset your password" e-mail failed (Error)',
      ]);
      expect(t.hostErrors).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
