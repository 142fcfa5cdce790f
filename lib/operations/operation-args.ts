// What every operation is called with: the router's runtime, the collection, and who is acting.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { CollectionRuntime, Runtime } from './runtime';

/** The common part of every operation's single args object. */
export interface OperationArgs {
  runtime: Runtime;
  collection: CollectionRuntime;
  /** The caller, or null when anonymous. */
  user: AuthUser | null;
  req?: Request;
  /** Skip every access rule (local API calls without a user). */
  overrideAccess?: boolean;
}

/**
 * The common part of an operation's args alone, without its own options (query, id, data...): what rules
 * and hooks are handed, so they never see an operation's options as if they were their own.
 */
export function operationArgs(args: OperationArgs): OperationArgs {
  return { runtime: args.runtime, collection: args.collection, user: args.user, req: args.req, overrideAccess: args.overrideAccess };
}

/** Writes also say whether hidden fields may be written and which fields the caller may not set. */
export interface WriteArgs extends OperationArgs {
  /** Server-side callers may write hidden fields. */
  trusted?: boolean;
  /** Fields this caller may not set (403); default: the read-only-fields hooks unless access is overridden. */
  readOnly?: ReadonlySet<string>;
}
