// Who reads the audit log: by default a user with role admin, and with an API key one carrying the admin
// scope; `audit.access.read` replaces that rule and may answer a where on the entries ("my own actions").
// Refused: anonymous 401, anyone else 403.
import type { Request } from 'express';
import { isAdmin } from '../config/auth-fields';
import type { AuditReadRule, AuthUser } from '../config/types';
import { ForbiddenError, QueryError } from '../errors';
import { accessDenied, hasScope, insufficientScope } from '../operations/access';
import type { WhereNode } from '../query/types';
import { isRecord } from '../util/is-record';
import { parseAuditWhere } from './audit-query';

/** The entries this caller may read: undefined for all of them; throws 401/403 when none. */
export async function auditReadAllowed(rule: AuditReadRule | undefined, user: AuthUser | null, req?: Request): Promise<WhereNode | undefined> {
  if (!rule) {
    if (!user || !isAdmin(user)) throw user ? new ForbiddenError('The audit log is for admins.') : accessDenied(user);
    if (!hasScope(user, 'admin')) throw insufficientScope('admin');
    return undefined;
  }
  // A key reads the log only with a scope that reads.
  if (!hasScope(user, 'read')) throw insufficientScope('read');
  const answer = await rule({ user, ...(req && { req }) });
  if (answer === true) return undefined;
  // Any other answer but a where denies: a rule that forgot to return never allows.
  if (!isRecord(answer)) throw accessDenied(user);
  try {
    return parseAuditWhere(answer, true);
  } catch (error) {
    // A bad where is the host's bug, not the client's: a logged 500 that shows the client none of it.
    if (!(error instanceof QueryError)) throw error;
    throw new Error(`content-router: audit.access.read returned an invalid where: ${error.message}`, { cause: error });
  }
}
