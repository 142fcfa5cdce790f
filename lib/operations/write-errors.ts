// Maps database write failures that are the client's doing (unique conflicts) to typed errors.
import { ConflictError } from '../errors';
import type { CollectionDescriptor } from '../schema/descriptors';

interface DuplicateKeyError {
  code: number;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  errmsg?: string;
  message?: string;
  index?: number;
  writeErrors?: Array<{ index?: number; err?: DuplicateKeyError; code?: number; keyPattern?: Record<string, unknown> }>;
}

function duplicateField(error: DuplicateKeyError): string {
  const fromPattern = error.keyPattern && Object.keys(error.keyPattern)[0];
  if (fromPattern) return fromPattern;
  // Some servers omit keyPattern; the index name ("email_1") still names the field.
  const match = /index: (?:\S+\$)?([A-Za-z0-9_]+?)_-?1/.exec(error.errmsg ?? error.message ?? '');
  return match?.[1] ?? 'value';
}

/** True for E11000 duplicate-key errors, however the driver wrapped them. */
export function isDuplicateKeyError(error: unknown): error is DuplicateKeyError {
  return typeof error === 'object' && error !== null && (error as DuplicateKeyError).code === 11000;
}

/** The field a conflict names to clients: none when it is hidden (clients know nothing of it). */
export function conflictField(descriptor: Pick<CollectionDescriptor, 'fields'>, field: string): string | undefined {
  const described = Object.hasOwn(descriptor.fields, field) ? descriptor.fields[field] : undefined;
  return described?.hidden && !described.writeOnly ? undefined : field;
}

/** A duplicate-key error as a 409 naming the field (never the value; not a hidden one); other errors unchanged. */
export function toWriteError(error: unknown, descriptor: Pick<CollectionDescriptor, 'fields'>, index?: number): unknown {
  return isDuplicateKeyError(error) ? new ConflictError(conflictField(descriptor, duplicateField(error)), index) : error;
}

/** Rethrows a duplicate-key error as a 409 naming the field (never the value; not a hidden one); other errors unchanged. */
export function rethrowWriteError(error: unknown, descriptor: Pick<CollectionDescriptor, 'fields'>, index?: number): never {
  throw toWriteError(error, descriptor, index);
}
