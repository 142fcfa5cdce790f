// Compiles one Mongoose model per collection and global on the router's own connection
// (the host's, or one the router opened), never on mongoose's global default connection.
import type { Connection, Model } from 'mongoose';
import type { Clock } from '../util/clock';
import type { CollectionDescriptor } from './descriptors';
import { buildSchema } from './build-schema';
import { buildVersionSchema } from './version-schema';

/** Collection that holds every global document, keyed by the global's slug. */
export const GLOBALS_COLLECTION = 'globals';

// Namespaced so that a host model called "posts" on the same connection is never overwritten.
function modelName(kind: 'collection' | 'global' | 'collection-drafts' | 'global-drafts' | 'collection-versions' | 'global-versions', slug: string): string {
  return `content-router:${kind}:${slug}`;
}

function compile(connection: Connection, name: string, collection: CollectionDescriptor, mongoCollection: string, clock: Clock): Model<Record<string, unknown>> {
  // A second router on the same connection recompiles its own models instead of colliding.
  if (connection.modelNames().includes(name)) connection.deleteModel(name);
  return connection.model<Record<string, unknown>>(name, buildSchema(collection, clock), mongoCollection);
}

/** Models for every collection, keyed by slug (createdAt and updatedAt read `clock`); stored in a Mongo collection named after the slug. */
export function buildCollectionModels(
  connection: Connection,
  collections: Iterable<CollectionDescriptor>,
  clock: Clock,
): Map<string, Model<Record<string, unknown>>> {
  const models = new Map<string, Model<Record<string, unknown>>>();
  for (const c of collections) models.set(c.slug, compile(connection, modelName('collection', c.slug), c, c.slug, clock));
  return models;
}

/** Models for every global, keyed by slug; all stored in the `globals` collection with `_id` = slug. */
export function buildGlobalModels(
  connection: Connection,
  globals: Iterable<CollectionDescriptor>,
  clock: Clock,
): Map<string, Model<Record<string, unknown>>> {
  const models = new Map<string, Model<Record<string, unknown>>>();
  for (const g of globals) models.set(g.slug, compile(connection, modelName('global', g.slug), g, GLOBALS_COLLECTION, clock));
  return models;
}

/** Where a versioned collection's (or global's) working copies and history are kept: beside its records. */
export function siblingCollection(owner: CollectionDescriptor, kind: 'drafts' | 'versions'): string {
  return `${owner.isGlobal ? GLOBALS_COLLECTION : owner.slug}_${kind}`;
}

/** The model of a drafts collection's working copies (`describeDrafts`' descriptor: nothing required, nothing unique), same ids as its records. */
export function buildDraftModel(connection: Connection, drafts: CollectionDescriptor, clock: Clock): Model<Record<string, unknown>> {
  return compile(connection, modelName(drafts.isGlobal ? 'global-drafts' : 'collection-drafts', drafts.slug), drafts, siblingCollection(drafts, 'drafts'), clock);
}

/** The model of a versioned collection's (or global's) history. */
export function buildVersionModel(connection: Connection, owner: CollectionDescriptor): Model<Record<string, unknown>> {
  const name = modelName(owner.isGlobal ? 'global-versions' : 'collection-versions', owner.slug);
  if (connection.modelNames().includes(name)) connection.deleteModel(name);
  return connection.model<Record<string, unknown>>(name, buildVersionSchema(), siblingCollection(owner, 'versions'));
}
