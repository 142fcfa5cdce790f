// Record ids in paths: anything that is not a 24-hex ObjectId cannot name a record, so it is a 404.
import { Types } from 'mongoose';
import { NotFoundError } from '../errors';
import { isObjectIdString } from '../util/object-id';

/** The path id if it can name a record (24 hex digits), or throws NotFoundError (never a 500 for a malformed id). */
export function checkRecordId(id: unknown): string {
  if (typeof id !== 'string' || !isObjectIdString(id)) throw new NotFoundError('No record with this id.');
  return id;
}

/** Parses a path id or throws NotFoundError (never a 500 for a malformed id). */
export function toRecordId(id: unknown): Types.ObjectId {
  return new Types.ObjectId(checkRecordId(id));
}
