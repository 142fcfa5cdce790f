// Thin HTTP handlers of one auth collection (SPEC §4.2, DESIGN §7), mounted at /<slug> before the
// collection's own routes so that /me and /api-keys are never read as record ids.
import { type Request, type Response, Router } from 'express';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { createJsonBody } from '../http/json-body';
import { requestUser } from '../http/request-user';
import { createApiKey, deleteApiKey, listApiKeys } from './api-keys';
import type { AuthCollection } from './auth-collection';
import { InputErrors, readBody } from './auth-input';
import { currentAccount } from './current-account';
import { VERIFICATION_REQUESTED, requestVerification, sendVerification, verifyEmail } from './email-verification';
import { login } from './login';
import { RESET_REQUESTED, requestPasswordReset, resetPassword } from './password-reset';
import { register } from './register';
import { logout, logoutAll, refresh } from './sessions';

/** Reads required string fields of a body, reporting every missing one at once. */
function readStrings<K extends string>(body: unknown, names: readonly K[]): Record<K, string> {
  const input = readBody(body, names);
  const errors = new InputErrors();
  const values = Object.fromEntries(names.map((name) => [name, errors.string(input, name)])) as Record<K, string>;
  errors.check();
  return values;
}

/** The auth router of one auth collection. */
export function createAuthRoutes(auth: AuthCollection): Router {
  const router = Router();
  const json = createJsonBody(auth.runtime.config.bodyLimit);
  const account = (req: Request, forbidApiKeys = false) =>
    requestUser(auth.runtime, req).then((user) => currentAccount({ auth, user, forbidApiKeys }));

  router.post('/register', json, async (req: Request, res: Response) => {
    if (!auth.options.allowRegistration) {
      throw new ForbiddenError('Registration is closed; ask an administrator for an account.', 'registration_closed');
    }
    res.status(201).json(await register({ auth, data: req.body, req }));
  });

  router.post('/login', json, async (req: Request, res: Response) => {
    const { email, password } = readStrings(req.body, ['email', 'password']);
    res.json(await login({ auth, email, password }));
  });

  router.post('/refresh', json, async (req: Request, res: Response) => {
    const { refreshToken } = readStrings(req.body, ['refreshToken']);
    res.json(await refresh({ auth, refreshToken }));
  });

  router.post('/logout', json, async (req: Request, res: Response) => {
    const { refreshToken } = readStrings(req.body, ['refreshToken']);
    await logout({ auth, refreshToken });
    res.json({ message: 'Logged out.' });
  });

  router.post('/logout-all', json, async (req: Request, res: Response) => {
    const me = await account(req, true);
    const revoked = await logoutAll({ auth, userId: me.id });
    res.json({ message: 'Logged out of every session.', revoked });
  });

  router.post('/forgot-password', json, async (req: Request, res: Response) => {
    const errors = new InputErrors();
    const email = errors.email(readBody(req.body, ['email']));
    errors.check();
    await requestPasswordReset({ auth, email });
    res.json({ message: RESET_REQUESTED });
  });

  router.post('/reset-password', json, async (req: Request, res: Response) => {
    const { token, password } = readStrings(req.body, ['token', 'password']);
    await resetPassword({ auth, token, password });
    res.json({ message: 'Your password has been reset. Log in with the new password.' });
  });

  router.post('/send-verification', json, async (req: Request, res: Response) => {
    const body = readBody(req.body ?? {}, ['email']);
    if (body.email !== undefined) {
      // By address: the same answer whether or not an unverified account has it.
      const errors = new InputErrors();
      const email = errors.email(body);
      errors.check();
      await requestVerification({ auth, email });
      res.json({ message: VERIFICATION_REQUESTED });
      return;
    }
    const user = await requestUser(auth.runtime, req);
    if (!user) throw new UnauthorizedError('Log in, or give the e-mail address to verify.');
    const me = await currentAccount({ auth, user });
    const sent = await sendVerification({ auth, userId: me.id });
    res.json({ message: sent ? 'We sent you a verification link.' : 'Your e-mail address is already verified.' });
  });

  router.post('/verify-email', json, async (req: Request, res: Response) => {
    const { token } = readStrings(req.body, ['token']);
    const user = await verifyEmail({ auth, token });
    res.json({ message: 'Your e-mail address is verified.', user });
  });

  router.get('/me', async (req: Request, res: Response) => {
    res.json(await account(req));
  });

  router.post('/api-keys', json, async (req: Request, res: Response) => {
    const me = await account(req, true);
    const apiKey = await createApiKey({ auth, userId: me.id, data: req.body });
    res.status(201).json({ apiKey });
  });

  router.get('/api-keys', async (req: Request, res: Response) => {
    const me = await account(req, true);
    res.json({ apiKeys: await listApiKeys({ auth, userId: me.id }) });
  });

  router.delete('/api-keys/:id', async (req: Request, res: Response) => {
    const me = await account(req, true);
    res.json(await deleteApiKey({ auth, userId: me.id, id: String(req.params.id) }));
  });

  return router;
}
