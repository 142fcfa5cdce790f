// Access to files works as it does for collections: `uploads.access.<op>` returns true, false or a where on
// the file record's fields; the where is parsed against a descriptor of the file record and translated to
// the paths of the GridFS files document.
import type { Request } from 'express';
import type { AccessFn, AuthUser } from '../config/types';
import { checkAccess, readConstraintOrNull } from '../operations/access';
import type { Runtime } from '../operations/runtime';
import { toMongoFilter } from '../query';
import { describeCollection } from '../schema/describe-collection';
import { type CollectionDescriptor, UPLOADS_SLUG } from '../schema/descriptors';

/** Who is asking, as operations take it. */
export interface UploadCaller {
  runtime: Runtime;
  user: AuthUser | null;
  req?: Request;
  overrideAccess?: boolean;
}

/** Record field -> files document path. */
const PATHS: Readonly<Record<string, string>> = {
  _id: '_id',
  filename: 'filename',
  originalName: 'metadata.originalName',
  mimeType: 'metadata.mimeType',
  alt: 'metadata.alt',
  uploadedBy: 'metadata.uploadedBy',
  size: 'length',
  createdAt: 'uploadDate',
  updatedAt: 'uploadDate',
};

/** Anyone may read files unless `uploads.access.read` says otherwise. */
const anyone: AccessFn = () => true;

/**
 * The file record as access rules see it. `uploadedBy` is hidden: never in a response, yet a rule may
 * constrain on it (`{ uploadedBy: { eq: user.id } }`). Create and delete fall back to "authenticated users".
 */
export function describeUploads(access: { create?: AccessFn; read?: AccessFn; delete?: AccessFn }): CollectionDescriptor {
  return describeCollection({
    slug: UPLOADS_SLUG,
    fields: {
      filename: { type: 'text' },
      originalName: { type: 'text' },
      mimeType: { type: 'text' },
      size: { type: 'number' },
      alt: { type: 'text' },
      uploadedBy: { type: 'text', hidden: true },
    },
    access: { read: access.read ?? anyone, create: access.create, delete: access.delete },
  });
}

function translate(filter: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') out[key] = (value as Record<string, unknown>[]).map(translate);
    else out[PATHS[key] ?? key] = value;
  }
  return out;
}

/**
 * Checks the read rule for the caller of a download: throws 401/403 when denied, returns undefined when
 * allowed outright, or the files-document filter a file must match. (Storing and deleting check their
 * rules in the file operations.)
 */
export async function uploadConstraint(caller: UploadCaller, descriptor: CollectionDescriptor): Promise<Record<string, unknown> | undefined> {
  const node = await checkAccess({ ...caller, collection: { descriptor }, op: 'read' });
  return node ? translate(toMongoFilter(node)) : undefined;
}

/**
 * The files-document filter of the files `caller` may read: undefined for every file, null for none (the
 * read rule refuses the caller outright). Population and the id check of upload fields both ask it, so a
 * file the caller may not read is, to them, a file that does not exist.
 */
export async function readableConstraint(caller: UploadCaller, descriptor: CollectionDescriptor): Promise<Record<string, unknown> | undefined | null> {
  const access = await readConstraintOrNull({ ...caller, collection: { descriptor } });
  if (!access) return null;
  return access.constraint ? translate(toMongoFilter(access.constraint)) : undefined;
}

/** `filter` AND the constraint, if any. */
export function withConstraint(filter: Record<string, unknown>, constraint: Record<string, unknown> | undefined): Record<string, unknown> {
  return constraint ? { $and: [filter, constraint] } : filter;
}
