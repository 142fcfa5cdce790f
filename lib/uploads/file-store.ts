// The GridFS bucket behind the uploads: `<bucket>.files` holds one document per file (metadata included),
// `<bucket>.chunks` its bytes. Lookups, removal, the file as access rules see it, and as the API shows it.
import mongoose, { type Connection, type mongo } from 'mongoose';
import type { FileRow, UploadedFile } from '../operations/file-storage';

/** What an upload keeps in the files document's `metadata`. */
export interface FileMetadata {
  originalName: string;
  mimeType: string;
  alt?: string;
  /** The uploader's id, for access rules such as "only the uploader deletes". */
  uploadedBy?: string;
}

/** A `<bucket>.files` document. */
export interface StoredFileDoc {
  _id: mongo.ObjectId;
  filename: string;
  length: number;
  chunkSize: number;
  uploadDate: Date;
  metadata?: FileMetadata;
}

export interface FileStore {
  readonly bucketName: string;
  /** The database, once the connection is open. */
  db(): Promise<mongo.Db>;
  /** The driver's GridFS bucket, which writes new files. */
  bucket(): Promise<mongo.GridFSBucket>;
  files(): Promise<mongo.Collection<StoredFileDoc>>;
  chunks(): Promise<mongo.Collection>;
  /** At most one file matching `filter` (already in files-document paths). */
  findOne(filter: mongo.Filter<StoredFileDoc>): Promise<StoredFileDoc | null>;
  find(filter: mongo.Filter<StoredFileDoc>): Promise<StoredFileDoc[]>;
  /** Removes the file document and every chunk of `id`; true when there was a file document. */
  remove(id: mongo.ObjectId): Promise<boolean>;
  /** Unique stored names, checked by the database too. */
  ensureIndexes(): Promise<void>;
}

/** The store of one bucket on the router's connection. */
export function createFileStore(connection: Connection, bucketName: string): FileStore {
  const db = async () => {
    await connection.asPromise();
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- an open connection has its db
    return connection.db!;
  };
  const files = async () => (await db()).collection<StoredFileDoc>(`${bucketName}.files`);
  const chunks = async () => (await db()).collection(`${bucketName}.chunks`);
  // One bucket: it checks the indexes once, on its first upload.
  let bucket: mongo.GridFSBucket | undefined;
  return {
    bucketName,
    db,
    async bucket() {
      bucket ??= new mongoose.mongo.GridFSBucket(await db(), { bucketName });
      return bucket;
    },
    files,
    chunks,
    async findOne(filter) {
      return (await files()).findOne(filter);
    },
    async find(filter) {
      return (await files()).find(filter).toArray();
    },
    async remove(id) {
      // The document first: from then on no reader finds the file, even while its chunks go.
      const { deletedCount } = await (await files()).deleteOne({ _id: id });
      await (await chunks()).deleteMany({ files_id: id });
      return deletedCount > 0;
    },
    async ensureIndexes() {
      await (await files()).createIndexes([{ key: { filename: 1 }, unique: true }]);
      await (await chunks()).createIndexes([{ key: { files_id: 1, n: 1 }, unique: true }]);
    },
  };
}

/** The file as access rules see it, from its files document (`length` absent while the bytes still arrive). */
export function toFileRow(doc: Pick<StoredFileDoc, '_id' | 'filename' | 'uploadDate' | 'metadata'> & { length?: number }): FileRow {
  const { metadata } = doc;
  return {
    _id: doc._id,
    filename: doc.filename,
    originalName: metadata?.originalName ?? doc.filename,
    mimeType: metadata?.mimeType ?? 'application/octet-stream',
    ...(doc.length === undefined ? {} : { size: doc.length }),
    ...(metadata?.alt === undefined ? {} : { alt: metadata.alt }),
    ...(metadata?.uploadedBy === undefined ? {} : { uploadedBy: metadata.uploadedBy }),
    createdAt: doc.uploadDate,
    updatedAt: doc.uploadDate,
  };
}

/** The file as the API shows it; `base` is the router's mount path (req.baseUrl, or the prefix). */
export function toUploadedFile(row: FileRow, base: string): UploadedFile {
  return {
    id: row._id.toHexString(),
    filename: row.filename,
    originalName: row.originalName,
    mimeType: row.mimeType,
    size: row.size ?? 0,
    url: `${base}/uploads/${encodeURIComponent(row.filename)}`,
    alt: row.alt ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
