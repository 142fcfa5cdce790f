// The e-mails auth sends (password reset, address verification). Pure: options, address and token in,
// message out. The token appears in the mail body only, never in a subject or anywhere logged.
import type { EmailMessage } from '../config/types';
import type { ResolvedAuthOptions } from './auth-options';

function withToken(template: string | undefined, token: string): string | undefined {
  return template?.split('{token}').join(encodeURIComponent(token));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function describe(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours >= 1 && Number.isInteger(hours)) return hours === 1 ? '1 hour' : `${hours} hours`;
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

function compose(to: string, subject: string, intro: string, action: string, link: string | undefined, token: string, expiry: string, outro: string): EmailMessage {
  const how = link ? `${action}:\n\n${link}` : `${action}, use this token:\n\n${token}`;
  const text = `${intro}\n\n${how}\n\nIt expires in ${expiry}. ${outro}\n`;
  const target = link
    ? `<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>`
    : `<p>${escapeHtml(action)}, use this token:</p><p><code>${escapeHtml(token)}</code></p>`;
  const html = `<p>${escapeHtml(intro)}</p>${target}<p>It expires in ${expiry}. ${escapeHtml(outro)}</p>`;
  return { to, subject, text, html };
}

/** The password-reset mail. */
export function resetPasswordEmail(options: ResolvedAuthOptions, to: string, token: string): EmailMessage {
  return compose(
    to,
    'Reset your password',
    'Someone asked to reset the password of your account.',
    'To choose a new password',
    withToken(options.resetPasswordUrl, token),
    token,
    describe(options.resetExpiryMs),
    'If it was not you, ignore this e-mail: your password stays as it is.',
  );
}

/** The address-verification mail. */
export function verifyEmailEmail(options: ResolvedAuthOptions, to: string, token: string): EmailMessage {
  return compose(
    to,
    'Verify your e-mail address',
    'Please confirm that this is your e-mail address.',
    'To verify it',
    withToken(options.verifyEmailUrl, token),
    token,
    describe(options.verificationExpiryMs),
    'If you did not create an account, ignore this e-mail.',
  );
}
