// `upload` fields of collections and globals: a written id must name a file the caller may read (one query
// per write, every field at once), and `depth`/`include` populate them with file records (one query per level).
import type { mongo } from 'mongoose';
import type { InputTransformer, RelationSource, Runtime } from '../operations/runtime';
import { type CollectionDescriptor, UPLOADS_SLUG } from '../schema/descriptors';
import { isObjectId } from '../util/object-id';
import { type FileStore, type StoredFileDoc, toFileRow, toUploadedFile } from './file-store';
import { type UploadCaller, readableConstraint, withConstraint } from './upload-access';

function idsOf(value: unknown): mongo.ObjectId[] {
  return (Array.isArray(value) ? value : [value]).filter(isObjectId);
}

/** The files among `ids` the caller may read; the others count as absent, as unreadable related records do. */
async function findReadableFiles(store: FileStore, descriptor: CollectionDescriptor, caller: UploadCaller, ids: mongo.ObjectId[]): Promise<StoredFileDoc[]> {
  const constraint = await readableConstraint(caller, descriptor);
  return constraint === null ? [] : store.find(withConstraint({ _id: { $in: ids } }, constraint));
}

/**
 * The input hook: a 400 naming each upload field whose id names no file the caller may read. A file it
 * may not read is refused exactly as a missing one, so the answer tells nothing about other callers' files.
 */
export function createUploadIdCheck(runtime: Runtime, store: FileStore, descriptor: CollectionDescriptor): InputTransformer {
  return async ({ collection, input, user, req, overrideAccess }) => {
    const fields = Object.values(collection.fields).filter((f) => f.type === 'upload' && Object.hasOwn(input.set, f.name));
    if (fields.length === 0) return;
    const wanted = fields.map((field) => ({ field: field.name, ids: idsOf(input.set[field.name]) }));
    const all = wanted.flatMap((w) => w.ids);
    if (all.length === 0) return;
    const found = await findReadableFiles(store, descriptor, { runtime, user, req, overrideAccess }, all);
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
      const docs = await findReadableFiles(store, descriptor, args, ids);
      const base = args.req?.baseUrl ?? prefix;
      return new Map(docs.map((doc) => [doc._id.toHexString(), toUploadedFile(toFileRow(doc), base)]));
    },
  };
}
