// Builds a test app with an auth collection (`users`), a content collection (`posts`) and a mailbox
// that captures every e-mail, so specs can read reset and verification tokens the way a user would.
import request from 'supertest';
import type { AuthOptions, CollectionAuthOptions, CollectionConfig, EmailMessage } from '../../lib';
import { type TestApp, type TestConfig, createTestApp } from '../helpers/create-test-app';

/** A 40-character test secret; real hosts read theirs from the environment. */
export const SECRET = 'test-secret-0123456789-abcdefghijklmnopq';
/** Low scrypt cost so the suite stays fast; password-hash.spec.ts and login-latency.spec.ts run the real default. */
export const FAST_HASH = { cost: 1024, blockSize: 8, parallelization: 1 };
export const PROBLEM = /application\/problem\+json/;
export const GOOD_PASSWORD = 'Corr3ct-Horse!';

export interface AuthTestApp extends TestApp {
  mails: EmailMessage[];
  /** Every line the router logged (info, warn, error), to check nothing secret was logged. */
  logs: string[];
}

export interface AuthTestOptions {
  /** Top-level auth options (merged over the test secret and the fast hash). */
  auth?: AuthOptions;
  /** The `auth` value of the users collection. Default true. */
  usersAuth?: true | CollectionAuthOptions;
  /** More collections, after users and posts. */
  collections?: CollectionConfig[];
  /** Leave email.send unset (the default logging mailer). */
  noMailer?: boolean;
  /** Use this email.send instead of the capturing one. */
  send?: (mail: EmailMessage) => Promise<void> | void;
  /** Anything else of the config. */
  extra?: Omit<TestConfig, 'collections' | 'auth' | 'email' | 'logger'>;
  /** db.requestTimeoutMS (the test app sets db itself). */
  requestTimeoutMS?: number | false;
}

/** The test app. */
export async function createAuthTestApp(options: AuthTestOptions = {}): Promise<AuthTestApp> {
  const mails: EmailMessage[] = [];
  const logs: string[] = [];
  const log = (...args: unknown[]) => {
    logs.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(' '));
  };
  const app = await createTestApp({
    logger: { info: log, warn: log, error: log },
    // The start-up list of sorts without an index (spec/http/list-indexes.spec.ts) is not what these specs watch,
    // whatever NODE_ENV a spec runs them under.
    warnings: { unindexedSorts: false },
    auth: { jwtSecret: SECRET, passwordHash: FAST_HASH, ...options.auth },
    ...(options.noMailer ? {} : { email: { send: options.send ?? ((mail: EmailMessage) => void mails.push(mail)) } }),
    collections: [
      { slug: 'users', auth: options.usersAuth ?? true, fields: { bio: { type: 'text' } } },
      { slug: 'posts', fields: { title: { type: 'text', required: true }, owner: { type: 'relationship', relationTo: 'users' } } },
      ...(options.collections ?? []),
    ],
    ...options.extra,
  }, options.requestTimeoutMS === undefined ? {} : { requestTimeoutMS: options.requestTimeoutMS });
  return Object.assign(app, { mails, logs });
}

let counter = 0;
/** A fresh, unique e-mail address. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${counter}-${process.pid}@example.com`;
}

export interface Registered {
  id: string;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

/** Registers a user over HTTP and returns its id and tokens. */
export async function registerUser(t: TestApp, overrides: Record<string, unknown> = {}): Promise<Registered> {
  const email = (overrides.email as string | undefined) ?? uniqueEmail();
  const password = (overrides.password as string | undefined) ?? GOOD_PASSWORD;
  const res = await request(t.app).post('/api/users/register').send({ email, password, name: 'Test User', ...overrides });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, email, password, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken };
}

/** Registers a user and makes it an admin directly in the database (only an admin could do it over HTTP). */
export async function registerAdmin(t: TestApp): Promise<Registered> {
  const user = await registerUser(t);
  await t.connection.collection('users').updateOne({ email: user.email }, { $set: { role: 'admin' } });
  return user;
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): [string, string] {
  return ['Authorization', `Bearer ${token}`];
}

/** The token in the last mail to `to` whose subject matches (bare token, or `token=` in a link). */
export function tokenFromMail(mails: EmailMessage[], to: string, subject: RegExp): string {
  const mail = [...mails].reverse().find((m) => m.to === to && subject.test(m.subject));
  if (!mail) throw new Error(`no mail to ${to} matching ${subject}`);
  const match = /token:\n\n(\S+)/.exec(mail.text) ?? /token=([^\s&]+)/.exec(mail.text);
  if (!match) throw new Error('no token in the mail');
  return decodeURIComponent(match[1]);
}

/** Hidden field names of auth collections: none may ever appear in a response. */
export const HIDDEN_AUTH_FIELDS = ['password', 'verificationToken', 'verificationExpiry', 'resetToken', 'resetExpiry'];

/** Asserts a response body names no hidden field and contains none of the given secrets (nor any scrypt hash). */
export function expectNoSecrets(body: unknown, secrets: readonly string[] = []): void {
  const text = JSON.stringify(body) ?? '';
  for (const name of HIDDEN_AUTH_FIELDS) expect(text).not.toContain(`"${name}":`);
  expect(text).not.toContain('scrypt$');
  for (const secret of secrets) if (secret) expect(text).not.toContain(secret);
}
