// register: creates a record through the shared create operation (validation, password policy and
// hashing, unique e-mail -> 409) with its first verification token, sends the verification mail, and
// starts a session.
import type { Request } from 'express';
import { create } from '../operations/create';
import { stateOf } from '../operations/request-state';
import { emitAccountEvent } from './account-events';
import type { AuthCollection } from './auth-collection';
import { REGISTER_READ_ONLY } from './auth-access';
import { verifyEmailEmail } from './auth-emails';
import { newVerificationToken } from './email-verification';
import { type SessionTokens, startSession } from './session-tokens';
import { authActor } from './user-writes';
import { isRecord } from '../util/is-record';

/** 201 body of register. Tokens are null when the collection requires verification before login. */
export interface RegisterResult {
  user: { id: string; email: string; name: string | null };
  accessToken: string | null;
  refreshToken: string | null;
  message: string;
}

export interface RegisterArgs {
  auth: AuthCollection;
  /** `{ email, password, name? }` plus any other field of the collection a client may write. */
  data: unknown;
  req?: Request;
}

/** Registers a user; throws 400 (invalid, weak password), 403 (role/verified sent) or 409 (e-mail taken). */
export async function register(args: RegisterArgs): Promise<RegisterResult> {
  const { auth } = args;
  const { token, fields } = newVerificationToken(auth);
  // The token's digest is stored with the record, in the one write that creates it. Hidden fields are not
  // the client's to name: a body that names one goes in as sent, and is refused as it always was.
  const clean = isRecord(args.data) && !namesHiddenField(auth, args.data) ? args.data : undefined;
  // Access is overridden (anyone may register) but role and verified stay out of the client's hands.
  const record = await create({
    runtime: auth.runtime,
    collection: auth.collection,
    data: clean ? { ...clean, ...fields } : args.data,
    // Only the token's fields: the body names no other hidden field (checked above).
    trusted: clean !== undefined,
    actor: authActor('register'),
    user: null,
    req: args.req,
    // One for the whole registration: without a request (api.auth.register) each hook step would make its own.
    state: stateOf({ req: args.req }),
    overrideAccess: true,
    // The registrant is anonymous: hooks' `api` runs as an anonymous caller, not with the access skipped above.
    hookAccess: false,
    readOnly: REGISTER_READ_ONLY,
  });
  const email = String(record.email);
  emitAccountEvent(auth, 'register', { userId: record.id, outcome: 201, req: args.req });
  await auth.mailer.deliver(verifyEmailEmail(auth.options, email, token));

  const user = { id: record.id, email, name: typeof record.name === 'string' ? record.name : null };
  if (auth.options.requireVerification) {
    return { user, accessToken: null, refreshToken: null, message: 'Registered. Verify your e-mail address (we sent you a link), then log in.' };
  }
  const session: SessionTokens = await startSession(auth, record.id);
  return { user, accessToken: session.accessToken, refreshToken: session.refreshToken, message: 'Registered. We sent you a link to verify your e-mail address.' };
}

/** True when the body names a hidden field a client may not write (the write-only password it may). */
function namesHiddenField(auth: AuthCollection, body: Record<string, unknown>): boolean {
  const { fields } = auth.collection.descriptor;
  return Object.keys(body).some((key) => Object.hasOwn(fields, key) && fields[key].hidden && !fields[key].writeOnly);
}
