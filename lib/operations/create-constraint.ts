// A create rule may answer with a where instead of true (`{ owner: { eq: user.id } }`): the new record
// must then match it, as Directus validates creates. The database checks the stored record, so the where
// means exactly what it means on reads; if any record of the write misses, all of them are removed again.
import type { Types } from 'mongoose';
import type { WhereNode } from '../query/types';
import { accessDenied } from './access';
import { buildFilter, idCondition } from './build-filter';
import type { OperationArgs } from './operation-args';

/** One created record and the constraint its create rule returned (undefined: allowed outright). */
export interface CreatedRecord {
  _id: Types.ObjectId;
  constraint?: WhereNode;
}

/** Throws 401/403 (after deleting every created record) unless each record matches its constraint. */
export async function assertCreatedWithin(args: OperationArgs, created: readonly CreatedRecord[]): Promise<void> {
  const { collection } = args;
  const checks = created.filter((record) => record.constraint !== undefined);
  if (checks.length === 0) return;
  const filters = await Promise.all(
    checks.map((record) =>
      buildFilter({ ...args, nodes: [idCondition(collection, [record._id]), record.constraint], deleted: true }),
    ),
  );
  const matched = await collection.model.find({ $or: filters }, { _id: 1 }).lean();
  if (matched.length === checks.length) return;
  await collection.model.deleteMany({ _id: { $in: created.map((record) => record._id) } });
  throw accessDenied(args.user);
}
