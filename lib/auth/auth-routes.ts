// The HTTP routes of one auth collection as route-table entries: register, login, refresh, logout,
// logout-all, forgot/reset-password, send-verification, verify-email, me, and API keys.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { sendJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import { SCOPES, requireScope } from '../operations/access';
import type { BodyShape, JsonSchema, RouteCaller, RouteDef, RouteHandler } from '../http/route-table';
import { createApiKey, deleteApiKey, listApiKeys } from './api-keys';
import { REGISTER_READ_ONLY } from './auth-access';
import type { AuthCollection } from './auth-collection';
import { InputErrors, readBody } from './auth-input';
import { accountRow, currentAccount, presentAccount } from './current-account';
import { VERIFICATION_REQUESTED, requestVerification, sendVerification, verifyEmail } from './email-verification';
import { login } from './login';
import { RESET_REQUESTED, requestPasswordReset, resetPassword } from './password-reset';
import { register } from './register';
import { logout, logoutAll, refresh } from './sessions';
import { changePassword } from './change-password';

/** Reads required string fields of a body, reporting every missing one at once. */
function readStrings<K extends string>(body: unknown, names: readonly K[]): Record<K, string> {
  const input = readBody(body, names);
  const errors = new InputErrors();
  const values = Object.fromEntries(names.map((name) => [name, errors.string(input, name)])) as Record<K, string>;
  errors.check();
  return values;
}

const str = { type: 'string' };
/** An API key's scopes, as keys are created with them and listed. */
const SCOPE_LIST: JsonSchema = { type: 'array', items: { type: 'string', enum: [...SCOPES] } };
/** A request body: an object of these properties, the named ones required. */
const object = (properties: Record<string, JsonSchema>, required: string[] = []): BodyShape => ({
  kind: 'schema',
  schema: { type: 'object', properties, required, additionalProperties: false },
});
const literal = (schema: JsonSchema): BodyShape => ({ kind: 'schema', schema });
/** An answer: every part is always sent, and nothing else. A part may be a record, which the document names. */
const answer = (properties: Record<string, BodyShape>): BodyShape => ({ kind: 'object', properties });
const text = literal(str);
const MESSAGE = answer({ message: text });
const TOKENS = { accessToken: text, refreshToken: text, expiresIn: literal({ type: 'integer', minimum: 0 }) };
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const ERRORS = { 400: { description: 'Invalid body' }, 401: { description: 'Invalid credentials' } };

/** Managing keys and sessions needs a login (an access token or the host's session), never an API key. */
const notForApiKeys = ({ user }: RouteCaller): Promise<boolean> => Promise.resolve(user?.scopes === undefined);

/** The routes of one auth collection, under `/<slug>`. */
export function authRoutes(auth: AuthCollection): RouteDef[] {
  const slug = auth.slug;
  const user: BodyShape = { kind: 'record', slug };
  // Register starts no session when the e-mail address must be verified first: both tokens are then null.
  const registerToken = literal(auth.options.requireVerification ? { type: 'null', description: 'Verify the e-mail address first, then log in.' } : str);
  const account = (req: Request, forbidApiKeys = false) =>
    requestUser(auth.runtime, req).then((caller) => currentAccount({ auth, user: caller, forbidApiKeys }));
  // The logged-in caller account() found (its credential is checked once per request).
  const caller = (req: Request) => requestUser(auth.runtime, req) as Promise<AuthUser>;
  const route = (
    method: RouteDef['method'],
    action: string,
    name: string,
    summary: string,
    handler: RouteHandler,
    { secret, ...extra }: Partial<RouteDef> & Pick<RouteDef, 'responses'> & { secret?: boolean },
  ): RouteDef => ({
    method,
    path: `/${slug}/${action}`,
    operationId: `${slug}.${name}`,
    summary,
    tags: [slug],
    auth: 'none',
    // Answers carrying a token or key must not be stored by any cache on the way (RFC 6749 section 5.1).
    handler: secret ? (req, res) => (res.set(NO_STORE), handler(req, res)) : handler,
    ...extra,
  });
  const json = (shape: BodyShape, required = true) => ({ type: 'json' as const, shape, required });

  return [
    route('post', 'register', 'register', 'Create an account', async (req, res) => {
      if (!auth.options.allowRegistration) {
        throw new ForbiddenError('Registration is closed; ask an administrator for an account.', 'registration_closed');
      }
      sendJson(req, res.status(201), await register({ auth, data: req.body, req }));
    }, {
      secret: true,
      config: { rateLimit: 'auth' },
      // Any field of the collection a client may write, but role and verified (a 403 here).
      body: json({ kind: 'record-input', slug, mode: 'create', omit: [...REGISTER_READ_ONLY] }),
      responses: {
        201: { description: 'The user and a session', shape: answer({ user: literal(REGISTERED_USER), accessToken: registerToken, refreshToken: registerToken, message: text }) },
        ...ERRORS,
        403: { description: 'Registration closed' },
        409: { description: 'E-mail taken' },
      },
    }),
    route('post', 'login', 'login', 'Log in with e-mail and password', async (req, res) => {
      const { email, password } = readStrings(req.body, ['email', 'password']);
      sendJson(req, res, await login({ auth, email, password, req }));
    }, {
      secret: true,
      config: { rateLimit: 'auth' },
      body: json(object({ email: str, password: str }, ['email', 'password'])),
      responses: { 200: { description: 'The user and a session', shape: answer({ user, ...TOKENS, token: text }) }, ...ERRORS, 403: { description: 'E-mail not verified' }, 429: { description: 'Account locked' } },
    }),
    route('post', 'refresh', 'refresh', 'Exchange a refresh token for new tokens', async (req, res) => {
      const { refreshToken } = readStrings(req.body, ['refreshToken']);
      sendJson(req, res, await refresh({ auth, refreshToken, req }));
    }, { secret: true, body: json(object({ refreshToken: str }, ['refreshToken'])), responses: { 200: { description: 'New tokens', shape: answer(TOKENS) }, ...ERRORS } }),
    route('post', 'logout', 'logout', 'Revoke a refresh token', async (req, res) => {
      const { refreshToken } = readStrings(req.body, ['refreshToken']);
      await logout({ auth, refreshToken, req });
      sendJson(req, res, { message: 'Logged out.' });
    }, { body: json(object({ refreshToken: str }, ['refreshToken'])), responses: { 200: { description: 'Logged out', shape: MESSAGE }, ...ERRORS } }),
    route('post', 'logout-all', 'logoutAll', "Revoke all of the user's refresh tokens", async (req, res) => {
      const me = await account(req, true);
      const revoked = await logoutAll({ auth, userId: me.id, actor: await caller(req), req });
      sendJson(req, res, { message: 'Logged out of every session.', revoked });
    }, { auth: 'required', reach: notForApiKeys, body: json(object({}), false), responses: { 200: { description: 'Sessions ended', shape: answer({ message: text, revoked: literal({ type: 'integer', minimum: 0 }) }) }, ...ERRORS, 403: { description: 'API keys cannot do this' } } }),
    route('post', 'forgot-password', 'forgotPassword', 'Ask for a password-reset e-mail', async (req, res) => {
      const errors = new InputErrors();
      const email = errors.email(readBody(req.body, ['email']));
      errors.check();
      const mail = await requestPasswordReset({ auth, email, req });
      sendJson(req, res, { message: RESET_REQUESTED });
      // Only now: the answer for a known address must not wait on the host's mailer.
      void mail();
    }, { config: { rateLimit: 'auth' }, body: json(object({ email: str }, ['email'])), responses: { 200: { description: 'The same answer for every address', shape: MESSAGE }, 400: ERRORS[400] } }),
    route('post', 'reset-password', 'resetPassword', 'Set a new password with a reset token', async (req, res) => {
      const { token, password } = readStrings(req.body, ['token', 'password']);
      await resetPassword({ auth, token, password, req });
      sendJson(req, res, { message: 'Your password has been reset. Log in with the new password.' });
    }, { config: { rateLimit: 'auth' }, body: json(object({ token: str, password: str }, ['token', 'password'])), responses: { 200: { description: 'Password set', shape: MESSAGE }, 400: ERRORS[400] } }),
    route('post', 'change-password', 'changePassword', 'Set a new password by giving the current one (ends every other session)', async (req, res) => {
      const me = await account(req, true);
      const { currentPassword, password } = readStrings(req.body, ['currentPassword', 'password']);
      const session = await changePassword({ auth, userId: me.id, currentPassword, password, req });
      sendJson(req, res, { message: 'Your password has been changed; every other session has ended.', ...session });
    }, {
      auth: 'required',
      reach: notForApiKeys,
      secret: true,
      config: { rateLimit: 'auth' },
      body: json(object({ currentPassword: str, password: str }, ['currentPassword', 'password'])),
      responses: { 200: { description: 'Changed, with a new session', shape: answer({ message: text, ...TOKENS }) }, ...ERRORS, 403: { description: 'API keys cannot do this' }, 429: { description: 'Account locked' } },
    }),
    route('post', 'send-verification', 'sendVerification', 'Send a verification e-mail (to the caller, or to an address)', async (req, res) => {
      const body = readBody(req.body ?? {}, ['email']);
      if (body.email !== undefined) {
        // By address: the same answer whether or not an unverified account has it.
        const errors = new InputErrors();
        const email = errors.email(body);
        errors.check();
        const mail = await requestVerification({ auth, email, req });
        sendJson(req, res, { message: VERIFICATION_REQUESTED });
        void mail();
        return;
      }
      const caller = await requestUser(auth.runtime, req);
      if (!caller) throw new UnauthorizedError('Log in, or give the e-mail address to verify.');
      requireScope(caller, 'update');
      const me = await currentAccount({ auth, user: caller });
      const sent = await sendVerification({ auth, userId: me.id, req });
      sendJson(req, res, { message: sent ? 'We sent you a verification link.' : 'Your e-mail address is already verified.' });
    }, { auth: 'optional', body: json(object({ email: str }), false), responses: { 200: { description: 'Sent (or nothing to send)', shape: MESSAGE }, ...ERRORS } }),
    route('post', 'verify-email', 'verifyEmail', 'Verify the e-mail address with a token', async (req, res) => {
      const { token } = readStrings(req.body, ['token']);
      const verified = await verifyEmail({ auth, token, req });
      sendJson(req, res, { message: 'Your e-mail address is verified.', user: verified });
    }, { body: json(object({ token: str }, ['token'])), responses: { 200: { description: 'Verified', shape: answer({ message: text, user }) }, 400: ERRORS[400] } }),
    route('get', 'me', 'me', 'Get the current user', async (req, res) => {
      const caller = await requestUser(auth.runtime, req);
      const row = await accountRow({ auth, user: caller });
      requireScope(caller, 'read');
      // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- accountRow has refused a missing caller (401)
      sendJson(req, res, await presentAccount(auth, row, caller!, req));
    }, { auth: 'required', responses: { 200: { description: 'The current user', shape: user }, 401: ERRORS[401] } }),
    route('post', 'api-keys', 'createApiKey', 'Create an API key (the key is shown only here)', async (req, res) => {
      const me = await account(req, true);
      sendJson(req, res.status(201), { apiKey: await createApiKey({ auth, userId: me.id, actor: await caller(req), req, data: req.body }) });
    }, {
      auth: 'required',
      reach: notForApiKeys,
      secret: true,
      body: json(object({ name: str, scopes: SCOPE_LIST, expiresAt: { type: 'string', format: 'date-time' } }, ['name'])),
      responses: { 201: { description: 'The new key', shape: answer({ apiKey: literal(API_KEY_WITH_SECRET) }) }, ...ERRORS, 403: { description: 'API keys cannot do this' } },
    }),
    route('get', 'api-keys', 'listApiKeys', "List the caller's API keys (without the keys)", async (req, res) => {
      const me = await account(req, true);
      sendJson(req, res, { apiKeys: await listApiKeys({ auth, userId: me.id }) });
    }, { auth: 'required', reach: notForApiKeys, responses: { 200: { description: 'The keys', shape: answer({ apiKeys: literal({ type: 'array', items: API_KEY }) }) }, 401: ERRORS[401], 403: { description: 'API keys cannot do this' } } }),
    route('delete', 'api-keys/:id', 'deleteApiKey', 'Revoke an API key', async (req, res) => {
      const me = await account(req, true);
      sendJson(req, res, await deleteApiKey({ auth, userId: me.id, actor: await caller(req), req, id: String(req.params.id) }));
    }, { auth: 'required', reach: notForApiKeys, responses: { 200: { description: 'Revoked', shape: answer({ deleted: literal({ type: 'boolean', const: true }) }) }, 401: ERRORS[401], 403: { description: 'API keys cannot do this' }, 404: { description: 'No such key' } } }),
  ];
}

const OBJECT_ID = { type: 'string', pattern: '^[0-9a-f]{24}$' };

/** The user register answers with: these three fields, not the whole record; name is null when unset. */
const REGISTERED_USER: JsonSchema = {
  type: 'object',
  properties: { id: OBJECT_ID, email: { type: 'string', format: 'email' }, name: { type: ['string', 'null'] } },
  required: ['id', 'email', 'name'],
  additionalProperties: false,
};

/** A closed object whose every property is always present. */
const closed = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });
const KEY_FIELDS = {
  id: OBJECT_ID,
  name: { type: 'string' },
  scopes: SCOPE_LIST,
  expiresAt: { type: ['string', 'null'], format: 'date-time' },
  createdAt: { type: 'string', format: 'date-time' },
};
/** A key as listed: never the key itself. */
const API_KEY = closed({ ...KEY_FIELDS, lastUsedAt: { type: ['string', 'null'], format: 'date-time' } });
/** A key just created: the only answer that carries the key. */
const API_KEY_WITH_SECRET = closed({ ...KEY_FIELDS, key: { type: 'string' } });
