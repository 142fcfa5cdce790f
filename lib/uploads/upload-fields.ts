// `upload` fields of collections and globals: a written id must name a stored file (one query per write,
// every field at once), and `depth`/`include` populate them with file records (one query per level).
import type { mongo } from 'mongoose';
import { ForbiddenError, UnauthorizedError } from '../errors';
import type { InputTransformer, RelationSource } from '../operations/runtime';
import { type CollectionDescriptor, UPLOADS_SLUG } from '../schema/descriptors';
import { isObjectId } from '../util/object-id';
import type { FileStore } from './file-store';
import { toUploadedFile } from './file-store';
import { uploadConstraint, withConstraint } from './upload-access';

function idsOf(value: unknown): mongo.ObjectId[] {
  return (Array.isArray(value) ? value : [value]).filter(isObjectId);
}

/** The input hook: a 400 naming each upload field whose id has no file. */
export function createUploadIdCheck(store: FileStore): InputTransformer {
  return async ({ collection, input }) => {
    const fields = Object.values(collection.fields).filter((f) => f.type === 'upload' && Object.hasOwn(input.set, f.name));
    if (fields.length === 0) return;
    const wanted = fields.map((field) => ({ field: field.name, ids: idsOf(input.set[field.name]) }));
    const all = wanted.flatMap((w) => w.ids);
    if (all.length === 0) return;
    const found = await (await store.files()).find({ _id: { $in: all } }, { projection: { _id: 1 } }).toArray();
    const existing = new Set(found.map((doc) => doc._id.toHexString()));
    for (const { field, ids } of wanted) {
      const missing = ids.filter((id) => !existing.has(id.toHexString()));
      if (missing.length) input.errors.push({ field, message: `no file with id ${missing.map((id) => id.toHexString()).join(', ')}`, code: 'unknown_file' });
    }
  };
}

/** Population of upload fields: the files the caller may read, as the API shows them. */
export function createUploadSource(store: FileStore, descriptor: CollectionDescriptor, prefix: string): RelationSource {
  return {
    slug: UPLOADS_SLUG,
    descriptor,
    async load(args, ids) {
      let constraint: Record<string, unknown> | undefined;
      try {
        constraint = await uploadConstraint(args, descriptor, 'read');
      } catch (error) {
        // Files the caller may not read stay ids, as unreadable related records do.
        if (error instanceof ForbiddenError || error instanceof UnauthorizedError) return new Map();
        throw error;
      }
      const docs = await store.find(withConstraint({ _id: { $in: ids } }, constraint));
      const base = args.req?.baseUrl ?? prefix;
      return new Map(docs.map((doc) => [doc._id.toHexString(), toUploadedFile(doc, base)]));
    },
  };
}
