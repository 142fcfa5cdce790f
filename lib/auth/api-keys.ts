// API-key operations for the caller's own keys: create (the key shown once), list (never the key),
// delete. Scopes are read, write and admin; omitted scopes grant all three.
import type { Request } from 'express';
import type { AuthUser, Scope } from '../config/types';
import { type ErrorDetail, NotFoundError, ValidationError } from '../errors';
import { SCOPES } from '../operations/access';
import type { ApiKeyRecord } from './api-key-store';
import { emitAccountEvent } from './account-events';
import type { AuthCollection } from './auth-collection';
import { readBody } from './auth-input';

const MAX_NAME_LENGTH = 100;

/** The creation answer: the record, not yet used, plus the key, which is never shown again. */
export type CreatedApiKey = Omit<ApiKeyRecord, 'lastUsedAt'> & { key: string };

interface KeyInput {
  name: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

function readKeyInput(body: unknown, now: Date): KeyInput {
  const input = readBody(body, ['name', 'scopes', 'expiresAt']);
  const errors: ErrorDetail[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (input.name === undefined || input.name === null || (typeof input.name === 'string' && name === '')) {
    errors.push({ field: 'name', message: 'name is required', code: 'required' });
  } else if (typeof input.name !== 'string') {
    errors.push({ field: 'name', message: 'name must be a string', code: 'invalid_type' });
  } else if (name.length > MAX_NAME_LENGTH) {
    errors.push({ field: 'name', message: `name must be at most ${MAX_NAME_LENGTH} characters`, code: 'too_long' });
  }

  let scopes: Scope[] = [...SCOPES];
  if (input.scopes !== undefined && input.scopes !== null) {
    if (!Array.isArray(input.scopes) || input.scopes.length === 0) {
      errors.push({ field: 'scopes', message: 'scopes must be a non-empty array of read, write, admin', code: 'invalid_type' });
    } else {
      const unknown = input.scopes.filter((s) => !SCOPES.includes(s as Scope));
      if (unknown.length) {
        errors.push({ field: 'scopes', message: `unknown scope${unknown.length > 1 ? 's' : ''} (allowed: ${SCOPES.join(', ')})`, code: 'invalid_scope' });
      }
      scopes = SCOPES.filter((s) => (input.scopes as unknown[]).includes(s));
    }
  }

  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const date = typeof input.expiresAt === 'string' ? new Date(input.expiresAt) : undefined;
    if (!date || Number.isNaN(date.getTime())) {
      errors.push({ field: 'expiresAt', message: 'expiresAt must be an ISO-8601 date', code: 'invalid_date' });
    } else if (date.getTime() <= now.getTime()) {
      errors.push({ field: 'expiresAt', message: 'expiresAt must be in the future', code: 'in_the_past' });
    } else {
      expiresAt = date;
    }
  }
  if (errors.length) throw new ValidationError('The API key request is not valid.', errors);
  return { name, scopes, expiresAt };
}

/** Who manages a user's keys: the user, logged in (`actor`), in a request when there is one. */
interface KeyCaller {
  auth: AuthCollection;
  userId: string;
  actor?: AuthUser;
  req?: Request;
}

/** Creates a key for the user from `{ name, scopes?, expiresAt? }`. */
export async function createApiKey(args: KeyCaller & { data: unknown }): Promise<CreatedApiKey> {
  const input = readKeyInput(args.data, args.auth.runtime.config.clock.now());
  const { record, key } = await args.auth.apiKeys.create({ userId: args.userId, ...input });
  emitAccountEvent(args.auth, 'apikey.create', { userId: args.userId, ...(args.actor && { actor: args.actor }), outcome: 201, req: args.req });
  return { id: record.id, name: record.name, scopes: record.scopes, expiresAt: record.expiresAt, createdAt: record.createdAt, key };
}

/** The user's keys, newest first, without the keys themselves. */
export function listApiKeys(args: { auth: AuthCollection; userId: string }): Promise<ApiKeyRecord[]> {
  return args.auth.apiKeys.list(args.userId);
}

/** Deletes one of the user's keys; 404 when the user has no key with this id. */
export async function deleteApiKey(args: KeyCaller & { id: string }): Promise<{ deleted: true }> {
  if (!(await args.auth.apiKeys.remove(args.userId, args.id))) throw new NotFoundError('No API key with this id.');
  emitAccountEvent(args.auth, 'apikey.revoke', { userId: args.userId, ...(args.actor && { actor: args.actor }), outcome: 200, req: args.req });
  return { deleted: true };
}
