// The router's live state that every operation reads: resolved config, models, serializers,
// and the change emitter that cache and realtime listen to. Built once by contentRouter().
import { EventEmitter } from 'node:events';
import type { Connection, Model } from 'mongoose';
import type { ResolvedConfig } from '../config/resolve-config';
import type { Request } from 'express';
import type { AccessFn, AuthUser } from '../config/types';
import type { CollectionDescriptor } from '../schema/descriptors';
import type { ValidatedInput } from '../schema/validate-input';
import { type RecordSerializer, createRecordSerializer } from '../schema/to-record';

export interface CollectionRuntime {
  readonly descriptor: CollectionDescriptor;
  readonly model: Model<Record<string, unknown>>;
  readonly serialize: RecordSerializer;
  /** Excludes hidden fields at the database, so they never even reach the process on reads. */
  readonly projection: Readonly<Record<string, 0>> | undefined;
}

/** A write that succeeded through this router. */
export interface ChangeEvent {
  type: 'create' | 'update' | 'delete';
  collection: string;
  ids: string[];
  /** Updates through the update operation: the fields it set or cleared. */
  fields?: string[];
}

/** Supplies the access function used when a collection configures none (auth adds its own). */
export type DefaultAccessProvider = (collection: CollectionDescriptor, op: 'read' | 'create' | 'update' | 'delete') => AccessFn | undefined;

/** Fields this caller may not write (e.g. role and verified for non-admins on auth collections); a 403 when sent. */
export type ReadOnlyFieldsProvider = (
  collection: CollectionDescriptor,
  user: AuthUser | null,
  op: 'create' | 'update',
) => ReadonlySet<string> | undefined;

/**
 * Runs after body validation and before the write: may add errors to `input.errors` or rewrite
 * `input.set` (auth collections check the password policy and hash the password here).
 */
export type InputTransformer = (args: {
  collection: CollectionDescriptor;
  input: ValidatedInput;
  op: 'create' | 'update';
  user: AuthUser | null;
}) => Promise<void>;

export interface Runtime {
  readonly config: ResolvedConfig;
  readonly connection: Connection;
  readonly collections: ReadonlyMap<string, CollectionRuntime>;
  readonly globals: ReadonlyMap<string, CollectionRuntime>;
  /** Emits 'change' (ChangeEvent) after every successful write. */
  readonly events: EventEmitter;
  defaultAccess?: DefaultAccessProvider;
  /** Field-level write rules applied to callers (not to the local API without a user). */
  readOnlyFields?: ReadOnlyFieldsProvider;
  /** Input rewriting before every create/update write (all callers). */
  transformInput?: InputTransformer;
  /** Resolves the caller of a request: the host's req.user by default; auth collections extend it. */
  authenticate: (req: Request) => Promise<AuthUser | null>;
}

/** Pairs a descriptor with its model and precomputed serializer and projection. */
export function createCollectionRuntime(descriptor: CollectionDescriptor, model: Model<Record<string, unknown>>): CollectionRuntime {
  const hidden = Object.values(descriptor.fields).filter((f) => f.hidden).map((f) => f.name);
  return Object.freeze({
    descriptor,
    model,
    serialize: createRecordSerializer(descriptor),
    projection: hidden.length ? Object.freeze(Object.fromEntries(hidden.map((name) => [name, 0 as const]))) : undefined,
  });
}

/** Looks up a collection by slug; operations call it with slugs that config validation guaranteed. */
export function getCollection(runtime: Runtime, slug: string): CollectionRuntime {
  const collection = runtime.collections.get(slug);
  if (!collection) throw new Error(`content-router: unknown collection "${slug}"`);
  return collection;
}
