// The output of the pure query layer: what a list request (or a local find) asks for,
// validated against the schema, cast by field type, with no client text left to become a Mongo operator.
import type { Types } from 'mongoose';
import type { FieldDescriptor } from '../schema/descriptors';

export const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
  'like',
  'nlike',
  'exists',
  'contains',
  'notContains',
  'any',
  'all',
  'between',
] as const;

export type Operator = (typeof OPERATORS)[number];

/**
 * A normalized condition tree. Leaves carry the field's descriptor and an already-cast value:
 * a scalar (or null for eq/neq) of the field's value type; an array for in/nin/any/all; `[start, end]`
 * for between; a boolean for exists; a case-insensitive RegExp (built from escaped text) for like/nlike
 * and for contains/notContains on non-array text fields (on array fields: one cast element).
 * `relation` nodes (dotted paths through a relationship, `author.name`) must be resolved to
 * `ids` nodes by the operations layer (which runs the inner where on the related collection,
 * under its read access) before toMongoFilter() is called.
 */
export type WhereNode =
  | { kind: 'and'; nodes: WhereNode[] }
  | { kind: 'or'; nodes: WhereNode[] }
  | { kind: 'field'; field: FieldDescriptor; op: Operator; value: unknown }
  | {
      kind: 'relation';
      field: FieldDescriptor;
      relationTo: string;
      where: WhereNode;
      /** The whole dotted path as the client wrote it (`where.author.company.name`), for error messages. */
      path: string;
      /** Present on conditions written by server code (access rules), which no client limit bounds. */
      trusted?: true;
    }
  | { kind: 'ids'; field: FieldDescriptor; ids: Types.ObjectId[] }
  | { kind: 'const'; value: boolean };

export interface SortItem {
  /** Field name as clients know it (`id` for the tie-breaker). */
  field: string;
  /** Mongo path (`_id` for id). */
  path: string;
  direction: 1 | -1;
}

/** A decoded keyset cursor: the sort values and id of the row it points after (or before). */
export interface CursorPosition {
  direction: 'next' | 'prev';
  /** One cast value per sort item, the final `_id` included. */
  values: unknown[];
}

/** Population request: relation field name -> what to populate inside the related records. */
export interface PopulateTree {
  [field: string]: PopulateTree;
}

/** Which list envelope to answer with (docs/querying.md, "List envelopes"). */
export type EnvelopeKind = 'docs' | 'data' | 'cursor';

export interface ListQuery {
  /** where + filter + search, ANDed; undefined when nothing constrains the list. */
  where?: WhereNode;
  /** Always ends with the `_id` tie-breaker. */
  sort: SortItem[];
  /** 1-based; 1 in cursor mode. */
  page: number;
  limit: number;
  /** Present in cursor mode; `null` means "first page" (`cursor=` given empty). */
  cursor?: CursorPosition | null;
  /** False when `count=false`: envelopes then omit totals. */
  count: boolean;
  /** Fields to return (`id` always returned); undefined = all visible fields. */
  select?: string[];
  populate: PopulateTree;
  includeDeleted: boolean;
  envelope: EnvelopeKind;
}

/** What a single-record read asks for (GET /:id, local findById). */
export interface RecordQuery {
  select?: string[];
  populate: PopulateTree;
  includeDeleted: boolean;
}

/** Knobs the parser needs beyond the schema; resolved from config once. */
export type { QueryOptions } from '../config/resolve-config';
