// Evaluates a collection's access rule for one operation: API-key scopes first (always), then the
// configured function or the default. Returns a where-constraint to merge, or throws 401/403. The scope
// rule (hasScope) is also the one custom endpoints hold their callers to.
import type { AccessArgs, AccessFn, AuthUser, Scope } from '../config/types';
import { ForbiddenError, QueryError, UnauthorizedError } from '../errors';
import { parseWhere } from '../query';
import type { WhereNode } from '../query/types';
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import { deepFreeze } from '../util/deep-freeze';
import { type CollectionRuntime, defaultAccessOf, type OperationArgs } from './runtime';

/** The four operations on records, each with its own rule. */
export type RecordOperation = 'read' | 'create' | 'update' | 'delete';
/**
 * The editorial workflow's rules (versions and drafts): each defaults to the collection's `update` rule, so
 * whoever may edit a record may publish it, read its working copy and its history unless told otherwise.
 */
export type WorkflowOperation = 'publish' | 'readDrafts' | 'readVersions';
export type AccessOperation = RecordOperation | WorkflowOperation;

/** An operation's args where only the records' descriptor is read, so records kept outside the collections (files) are checked the same way. */
export interface DescribedArgs extends Omit<OperationArgs, 'collection'> {
  collection: Pick<CollectionRuntime, 'descriptor'>;
}

export interface AccessCheck extends DescribedArgs {
  op: AccessOperation;
  id?: string;
  data?: Record<string, unknown>;
}

/** Every scope an API key may carry. */
export const SCOPES: readonly Scope[] = Object.freeze(['read', 'write', 'admin']);

/**
 * True unless the caller's API key lacks `scope`. The admin scope allows every scope (it is "every
 * operation a key can do", not the admin role: what the user may do is still the user's rules). No
 * scopes (an access token, a host user): no restriction.
 */
export function hasScope(user: AuthUser | null, scope: Scope): boolean {
  if (!user?.scopes) return true;
  return user.scopes.includes('admin') || user.scopes.includes(scope);
}

/** Reads need the read scope, writes the write scope. */
export function scopeAllows(user: AuthUser | null, op: AccessOperation): boolean {
  return hasScope(user, scopeOf(op));
}

function scopeOf(op: AccessOperation): Scope {
  return op === 'read' || op === 'readDrafts' || op === 'readVersions' ? 'read' : 'write';
}

/** 403 `insufficient_scope` unless the caller's API key (if any) carries the scope this effect needs. */
export function requireScope(user: AuthUser | null, op: AccessOperation): void {
  if (!scopeAllows(user, op)) throw insufficientScope(scopeOf(op));
}

/** The refusal of a key without `scope` where anonymous callers are refused: a 403, never a 401 "log in". */
export function insufficientScope(scope: Scope): ForbiddenError {
  return new ForbiddenError(`This API key lacks the ${scope} scope.`, 'insufficient_scope');
}

/** The denial of a rule: 401 without a user, 403 with one. */
export function accessDenied(user: AuthUser | null): ForbiddenError | UnauthorizedError {
  return user ? new ForbiddenError() : new UnauthorizedError();
}

/** Default rule: any authenticated user may act (scopes already checked); anonymous callers may not. */
const authenticated = ({ user }: AccessArgs): boolean => user !== null;

/**
 * Returns undefined when allowed without constraint, or the constraint node to AND into the query.
 * Rejects with UnauthorizedError (no user) or ForbiddenError (user) when denied.
 */
export async function checkAccess(check: AccessCheck): Promise<WhereNode | undefined> {
  return judgeAnswer(askRule(check));
}

/** A rule's answer to one check, as the rule gave it: a value or a promise of one. */
export interface RuleAnswer {
  check: AccessCheck;
  /** False when the caller's API key lacks the operation's scope: the rule was asked as for an anonymous caller. */
  scoped: boolean;
  user: AuthUser | null;
  result: unknown;
}

/**
 * Asks the collection's rule for one check, without judging the answer yet: a read can see at once that
 * the rule allowed it outright (`result === true`) and take the shortest path. Throws what the rule throws.
 */
export function askRule(check: AccessCheck): RuleAnswer {
  if (check.overrideAccess) return { check, scoped: true, user: check.user, result: true };
  const { op } = check;
  // A key without the scope acts as an anonymous caller for this operation: it never does less than no
  // credential would (a public read stays public), and where anonymous callers are refused it is a 403.
  const scoped = scopeAllows(check.user, op);
  const user = scoped ? check.user : null;
  const rule = ruleOf(check);
  return { check, scoped, user, result: rule({ user, req: check.req, id: check.id, data: check.data }) };
}

/** The collection's rule for the operation: the configured one, else a feature's default, else the package's. */
function ruleOf(check: AccessCheck): AccessFn {
  const { runtime, collection } = check;
  const { access, variant } = collection.descriptor;
  // Reading a working copy is the readDrafts rule, whoever asks (a list, a get, population of a draft).
  const op = variant === 'draft' && check.op === 'read' ? 'readDrafts' : check.op;
  if (op === 'publish' || op === 'readDrafts' || op === 'readVersions') return access[op] ?? access.update ?? defaultAccessOf(runtime, collection.descriptor, 'update') ?? authenticated;
  return access[op] ?? defaultAccessOf(runtime, collection.descriptor, op) ?? authenticated;
}

/** What checkAccess answers for a rule's answer: no constraint, a constraint, or a rejection. */
export async function judgeAnswer({ check, scoped, user, result }: RuleAnswer): Promise<WhereNode | undefined> {
  return ruleOutcome(check, scoped, user, await result);
}

function ruleOutcome(check: AccessCheck, scoped: boolean, user: AuthUser | null, result: unknown): WhereNode | undefined {
  const { runtime, collection, op } = check;
  if (result === true) return undefined;
  // Any falsy answer (false, null, undefined, 0, '') denies: a rule that forgot to return never allows.
  if (!result) throw scoped ? accessDenied(user) : insufficientScope(scopeOf(op));
  try {
    return constraintOf(collection.descriptor, runtime.registry, result);
  } catch (error) {
    // A bad constraint is the host's bug, not the client's: a logged 500 that shows the client none of it.
    if (!(error instanceof QueryError)) throw error;
    throw new Error(`content-router: the ${op} rule of "${collection.descriptor.slug}" returned an invalid where: ${error.message}`, { cause: error });
  }
}

/** Most distinct rule results whose parsed where a collection keeps; the least recently used goes first. */
const MAX_WHERES = 256;
/** Longest result (as JSON) kept: a where naming many ids is rarely asked again. */
const MAX_WHERE_CHARS = 4096;
/** Per collection, the parsed where of each rule result seen, by the result's JSON. */
const parsedWheres = new WeakMap<CollectionDescriptor, Map<string, WhereNode | undefined>>();

/**
 * The constraint of a rule's `where`, parsed once per distinct result: a rule usually answers one where per
 * user or role, and parsing it is a measurable share of a read. A result is told apart by its JSON, so only
 * results JSON writes faithfully are kept: strings, finite numbers, booleans, null, plain objects and arrays
 * (an ObjectId or a Date is parsed every time). Shared, hence frozen. Constraints come from server code, so
 * they may name hidden fields (e.g. an owner id).
 */
function constraintOf(descriptor: CollectionDescriptor, registry: SchemaRegistry, result: unknown): WhereNode | undefined {
  const key = isPlainJson(result) ? JSON.stringify(result) : undefined;
  if (key === undefined || key.length > MAX_WHERE_CHARS) return parseWhere(result, descriptor, registry, { trusted: true });
  let known = parsedWheres.get(descriptor);
  if (!known) parsedWheres.set(descriptor, (known = new Map<string, WhereNode | undefined>()));
  if (known.has(key)) {
    const node = known.get(key);
    // Re-inserted: a Map iterates in insertion order, so its first key is the least recently used.
    known.delete(key);
    known.set(key, node);
    return node;
  }
  const node = deepFreeze(parseWhere(result, descriptor, registry, { trusted: true }));
  known.set(key, node);
  if (known.size > MAX_WHERES) known.delete(known.keys().next().value as string);
  return node;
}

/** True for a value JSON.stringify writes so that no other value reads the same. */
function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isPlainJson);
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * The read rule's constraint on a write that finds its records (by where, or by id): a record the caller
 * may not read, it cannot find, so a write rule broader than the read rule never makes a write (its dry run's
 * count, its answer) an oracle for what the caller cannot see. The rule is asked as the caller's user
 * whatever its API key's scopes: a key may write without the read scope, yet it finds only what its user
 * may read. Rejects as a read does (401/403) when the user may read nothing of the collection.
 */
export async function findableConstraint(check: Omit<AccessCheck, 'op' | 'data'>): Promise<WhereNode | undefined> {
  if (check.overrideAccess) return undefined;
  const { user } = check;
  const read = { ...check, op: 'read' as const, data: undefined };
  return ruleOutcome(read, true, user, await ruleOf(read)({ user, req: check.req, id: check.id, data: undefined }));
}

/**
 * Like checkAccess for `read`, but answers "denied" with null instead of throwing (population, relation
 * filters). The rule reads a list of the related collection: the parent operation's id and body are not its own.
 */
export async function readConstraintOrNull(
  check: Omit<AccessCheck, 'op'>,
): Promise<{ constraint: WhereNode | undefined } | null> {
  try {
    return { constraint: await checkAccess({ ...check, op: 'read', id: undefined, data: undefined }) };
  } catch (error) {
    if (error instanceof ForbiddenError || error instanceof UnauthorizedError) return null;
    throw error;
  }
}
