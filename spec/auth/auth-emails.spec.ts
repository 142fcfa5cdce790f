// The reset and verification mails: the token (or a link built from the configured template) in
// the body, never in the subject; HTML escaped.
import { resolveAuthOptions } from '../../lib/auth/auth-options';
import { resetPasswordEmail, verifyEmailEmail } from '../../lib/auth/auth-emails';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const users = { slug: 'users', auth: true, fields: {} } as const;

describe('auth e-mails', () => {
  it('carries the bare token when no URL template is set', () => {
    const mail = resetPasswordEmail(resolveAuthOptions({ db, auth: { jwtSecret: 'x'.repeat(32) } }, users), 'a@example.com', 'tok_EN-1');
    expect(mail).toMatchObject({ to: 'a@example.com', subject: 'Reset your password' });
    expect(mail.subject).not.toContain('tok_EN-1');
    expect(mail.text).toContain('use this token:\n\ntok_EN-1\n');
    expect(mail.text).toContain('expires in 1 hour');
    expect(mail.html).toContain('<code>tok_EN-1</code>');
  });

  it('builds a link from the template, URL-encoding the token and escaping the HTML', () => {
    const options = resolveAuthOptions({ db, auth: { jwtSecret: 'x'.repeat(32), verifyEmailUrl: 'https://app.example.com/verify?a=1&token={token}' } }, users);
    const mail = verifyEmailEmail(options, 'b@example.com', 'a+b/c');
    expect(mail.subject).toBe('Verify your e-mail address');
    expect(mail.text).toContain('https://app.example.com/verify?a=1&token=a%2Bb%2Fc');
    expect(mail.html).toContain('href="https://app.example.com/verify?a=1&#38;token=a%2Bb%2Fc"');
    expect(mail.text).toContain('expires in 24 hours');
  });
});
