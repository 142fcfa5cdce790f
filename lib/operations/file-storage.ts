// The port between the file operations (upload-file, delete-file) and the place files live. The operations
// decide who may store or delete what, check it with the access machinery collections use, and publish
// the change; a storage (the uploads feature's GridFS bucket) keeps the bytes. Files reach the operations
// as rows of the uploads' pseudo-collection, so rules are checked on them as on any record.
import type { Readable } from 'node:stream';
import type { Types } from 'mongoose';
import type { CollectionDescriptor } from '../schema/descriptors';

/** A stored file as the API shows it (docs/uploads.md). */
export interface UploadedFile {
  id: string;
  /** The stored, unique name: the last segment of `url`. */
  filename: string;
  originalName: string;
  mimeType: string;
  size: number;
  /** Where the file is served, under the router's mount path. */
  url: string;
  alt: string | null;
  createdAt: string;
}

/** A file as access rules see it: the fields of the file record, `_id` for its id (a type, so it is a RawDoc). */
export type FileRow = {
  _id: Types.ObjectId;
  filename: string;
  originalName: string;
  mimeType: string;
  /** Bytes; unknown while they are still arriving. */
  size?: number;
  alt?: string;
  /** The uploader's user id (hidden: never shown, but rules may name it). */
  uploadedBy?: string;
  createdAt: Date;
  updatedAt: Date;
};

/** One file arriving: its bytes and what the client said about them. */
export interface IncomingFile {
  source: Readable;
  /** The client's name for it (the storage keeps a safe form of it). */
  originalName: string | undefined;
  declaredType: string | undefined;
  /**
   * What becomes of the rest of `source` when the file is refused: drained (a request's body must still be
   * read to its end before it is answered) or destroyed.
   */
  discard: 'drain' | 'destroy';
}

/** A file whose bytes are stored but which does not exist yet for anyone: committed or aborted, never left. */
export interface PendingFile {
  /** The row as it will be stored, its size counted. */
  readonly row: FileRow;
  /** Writes the file's record, `alt` in it: from then on the file exists. Removes the bytes when it fails. */
  commit(alt: string | undefined): Promise<FileRow>;
  /** Removes every byte stored. Safe to call again, and after a failed commit. */
  abort(): Promise<void>;
}

export interface FileStorage {
  /**
   * Stores the bytes of `file`: its type is decided from its first bytes, then `admit` is called with the
   * row as it will be stored (no size yet) before anything is written; the size is counted as the rest
   * flows. Rejects (413, 415, `admit`'s refusal, the source's or the database's failure) having stored
   * nothing, and with the rest of the source discarded.
   */
  write(file: IncomingFile, uploadedBy: string | undefined, admit: (row: FileRow) => Promise<void>): Promise<PendingFile>;
  /** The file stored under `filename`, or null (also for a name the storage never gives). */
  findByName(filename: string): Promise<FileRow | null>;
  /** Removes the file's record and every byte of it; false when there was no such file. */
  remove(id: Types.ObjectId): Promise<boolean>;
  /** The file as the API shows it; `base` is the router's mount path. */
  toRecord(row: FileRow, base: string): UploadedFile;
}

/** The uploads' pseudo-collection as the file operations take it: its record's descriptor (whose access rules apply) and its storage. */
export interface FileCollection {
  readonly descriptor: CollectionDescriptor;
  readonly storage: FileStorage;
}
