// Shared fixtures for the pure query-layer specs: a registry built from plain configs (no Mongoose
// models, no database), qs parsing as the router does it, and a helper to capture a QueryError.
import { parse } from 'qs';
import { QueryError } from '../../lib/errors';
import type { CollectionConfig } from '../../lib/config/types';
import { describeCollections } from '../../lib/schema/describe-collection';
import { UPLOADS_SLUG, type CollectionDescriptor, type SchemaRegistry } from '../../lib/schema/descriptors';
import type { QueryOptions, WhereNode } from '../../lib/query/types';

export const POSTS: CollectionConfig = {
  slug: 'posts',
  softDelete: true,
  fields: {
    title: { type: 'text', required: true },
    body: { type: 'textarea' },
    views: { type: 'number' },
    published: { type: 'boolean' },
    publishedAt: { type: 'date' },
    status: { type: 'select', options: ['draft', 'published'] },
    tags: { type: 'array', of: 'text' },
    scores: { type: 'array', of: 'number' },
    categories: { type: 'relationship', relationTo: 'categories', hasMany: true },
    author: { type: 'relationship', relationTo: 'authors' },
    secret: { type: 'text', hidden: true },
    meta: { type: 'json' },
  },
};

export const AUTHORS: CollectionConfig = {
  slug: 'authors',
  fields: {
    name: { type: 'text' },
    email: { type: 'email' },
    avatar: { type: 'upload' },
    company: { type: 'relationship', relationTo: 'companies' },
    passwordHash: { type: 'text', hidden: true },
  },
};

export const CATEGORIES: CollectionConfig = { slug: 'categories', fields: { name: { type: 'text' } } };
export const COMPANIES: CollectionConfig = { slug: 'companies', fields: { name: { type: 'text' } } };
export const UPLOADS: CollectionConfig = { slug: UPLOADS_SLUG, fields: { filename: { type: 'text' } } };

/** The registry most specs use: no uploads collection, so `author.avatar.x` is an unknown field. */
export const registry: SchemaRegistry = describeCollections([POSTS, AUTHORS, CATEGORIES, COMPANIES]);
/** The same collections plus the uploads pseudo-collection. */
export const registryWithUploads: SchemaRegistry = describeCollections([POSTS, AUTHORS, CATEGORIES, COMPANIES, UPLOADS]);

function collectionOf(reg: SchemaRegistry, slug: string): CollectionDescriptor {
  const found = reg.get(slug);
  if (!found) throw new Error(`fixture: no collection ${slug}`);
  return found;
}

export const posts = collectionOf(registry, 'posts');
export const authors = collectionOf(registry, 'authors');
export const categories = collectionOf(registry, 'categories');
export const companies = collectionOf(registry, 'companies');

export const OPTIONS: QueryOptions = {
  listFormat: 'data',
  maxDepth: 2,
  overLimit: 'reject',
  maxRelationConditions: 10,
  maxRelationDepth: 3,
  maxRelationIds: 10_000,
};

/** Parses a query string exactly as the router does. */
export function parseQs(query: string): Record<string, unknown> {
  return parse(query, { depth: 10, arrayLimit: 100, parameterLimit: 200 });
}

/** A field leaf of `collection` (posts by default), as the parser builds it. */
export function leaf(name: string, op: string, value: unknown, collection: CollectionDescriptor = posts): WhereNode {
  return { kind: 'field', field: collection.fields[name], op, value } as WhereNode;
}

/** Runs `fn` and returns the QueryError it throws (fails the test if it throws anything else or nothing). */
export function rejectionOf(fn: () => unknown): QueryError {
  try {
    fn();
  } catch (error) {
    if (error instanceof QueryError) return error;
    throw error;
  }
  throw new Error('expected a QueryError, nothing was thrown');
}

/** The essentials of a QueryError, for one toEqual. */
export function describeRejection(error: QueryError): { status: number; message: string; errors: unknown } {
  return { status: error.status, message: error.message, errors: error.errors };
}

/** The rejection a query error should carry: `<path>: <message>` with one matching errors[] entry. */
export function expectedRejection(path: string, message: string, code: string) {
  return { status: 400, message: `${path}: ${message}`, errors: [{ field: path, message, code }] };
}
