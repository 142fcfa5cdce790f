// Streams one file into GridFS through the driver's GridFSBucket, as the file operations' storage writes
// it: the first bytes decide its type and the operation admits the file before anything is written, the
// size is counted as the bytes flow, and the files document is written only when the operation commits
// (alt text included). A file that fails for any reason (too large, refused, client gone, database error)
// leaves neither its files document nor a single chunk behind.
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import mongoose, { type mongo } from 'mongoose';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors';
import type { FileRow, FileStorage, PendingFile } from '../operations/file-storage';
import { chooseExtension, createStoredName, sanitizeOriginalName } from './file-names';
import { type FileMetadata, type FileStore, toFileRow } from './file-store';
import { SNIFF_BYTES, detectMimeType } from './mime-policy';
import type { ResolvedUploadOptions } from './upload-options';
import type { Clock } from '../util/clock';

/** Bytes read ahead of GridFS while it writes a chunk (it writes them one at a time). */
const STREAM_BUFFER = 1024 * 1024;

/** A chunk as a Buffer without copying it (a string chunk of a text-mode stream is encoded). */
function asBuffer(chunk: Buffer | Uint8Array | string): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  return typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Reads until SNIFF_BYTES are in hand (or the stream ends); the rest stays in the iterator. */
async function readHead(iterator: AsyncIterator<Buffer>): Promise<{ head: Buffer; ended: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  while (size < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) return { head: Buffer.concat(parts), ended: true };
    const chunk = asBuffer(next.value);
    parts.push(chunk);
    size += chunk.length;
  }
  return { head: Buffer.concat(parts), ended: false };
}

/** The head again, then the rest, failing with 413 as soon as the count passes `maxFileSize`; `counted.size` ends as the file's size. */
function limited(head: Buffer, ended: boolean, iterator: AsyncIterator<Buffer>, maxFileSize: number, counted: { size: number }): Readable {
  const tooLarge = () => new PayloadTooLargeError(`The file is larger than the limit of ${maxFileSize} bytes.`);
  async function* bytes() {
    counted.size = head.length;
    if (counted.size > maxFileSize) throw tooLarge();
    if (counted.size) yield head;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      const chunk = asBuffer(next.value);
      counted.size += chunk.length;
      if (counted.size > maxFileSize) throw tooLarge();
      yield chunk;
    }
  }
  return Readable.from(bytes(), { objectMode: false, highWaterMark: STREAM_BUFFER });
}

/** Resolves once `upload` has taken `chunk` (stored it, when it completed a GridFS chunk). */
function write(upload: mongo.GridFSBucketWriteStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => upload.write(chunk, (error) => (error ? reject(error) : resolve())));
}

/**
 * The pipeline's last stage: each chunk goes to GridFS only once the one before is taken, so when the
 * source fails (413, client gone) and this settles, no chunk write is in flight: abort() then finds
 * every chunk that will ever be written. The stream is not ended: its files document waits for commit().
 */
async function writeAll(chunks: AsyncIterable<Buffer>, upload: mongo.GridFSBucketWriteStream): Promise<void> {
  for await (const chunk of chunks) await write(upload, chunk);
}

/**
 * Removes what a failed upload wrote. abort() deletes its chunks and refuses any later write; it refuses
 * itself once the stream has ended (the files document failed), when remove() deletes the chunks instead,
 * with the files document. The upload's own error is the answer: a cleanup that fails too (database gone)
 * must not hide it.
 */
async function removeWritten(store: FileStore, upload: mongo.GridFSBucketWriteStream, id: mongo.ObjectId): Promise<void> {
  await upload.abort().catch(() => undefined);
  await store.remove(id).catch(() => undefined);
}

/** The metadata of the files document, in the order it is stored. */
function metadataOf(originalName: string, mimeType: string, alt: string | undefined, uploadedBy: string | undefined): FileMetadata {
  return { originalName, mimeType, ...(alt === undefined ? {} : { alt }), ...(uploadedBy === undefined ? {} : { uploadedBy }) };
}

/** The stored bytes of one file, its stream open until the operation commits or aborts. */
function pendingFile(store: FileStore, upload: mongo.GridFSBucketWriteStream, done: Promise<void>, row: FileRow): PendingFile {
  let removing: Promise<void> | undefined;
  const abort = () => (removing ??= removeWritten(store, upload, row._id));
  return {
    row,
    abort,
    async commit(alt) {
      // GridFS writes the files document as its stream ends, with the metadata of its (public) options:
      // alt joins them first, so the record is written once, whole.
      upload.options.metadata = metadataOf(row.originalName, row.mimeType, alt, row.uploadedBy);
      try {
        upload.end();
        await done;
      } catch (error) {
        await abort();
        throw error;
      }
      // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a finished upload stream has written its files document
      return toFileRow({ ...upload.gridFSFile!, metadata: upload.options.metadata as FileMetadata });
    },
  };
}

/** The writer of one bucket: FileStorage.write over the driver's GridFSBucket. */
export function createFileWriter(store: FileStore, options: ResolvedUploadOptions, clock: Clock): FileStorage['write'] {
  return async (file, uploadedBy, admit) => {
    const { source } = file;
    // Not destroyed when we stop reading: multer needs the part drained to finish the request.
    const iterator = source.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const discard = () => (file.discard === 'drain' ? source.resume() : source.destroy());

    // 1. The type, from the first bytes; the stored name; the operation's admission: all before anything is written.
    let head: Buffer;
    let ended: boolean;
    let metadata: FileMetadata;
    let row: FileRow;
    let bucket: mongo.GridFSBucket;
    try {
      ({ head, ended } = await readHead(iterator));
      const { mimeType, ext } = await detectMimeType(head, file.declaredType);
      if (options.allowed && !options.allowed(mimeType)) throw new UnsupportedMediaTypeError(`Files of type ${mimeType} are not accepted here.`);
      const originalName = sanitizeOriginalName(file.originalName);
      metadata = metadataOf(originalName, mimeType, undefined, uploadedBy);
      row = toFileRow({ _id: new mongoose.mongo.ObjectId(), filename: createStoredName(chooseExtension(originalName, ext)), uploadDate: clock.now(), metadata });
      await admit(row);
      bucket = await store.bucket();
    } catch (error) {
      discard();
      throw error;
    }

    // 2. The bytes, counted against the limit, into GridFS chunks.
    const upload = bucket.openUploadStream(row.filename, { id: row._id, metadata });
    // Listened to from the start: the stream's errors reach the writes' callbacks, and must not go uncaught.
    const done = finished(upload);
    done.catch(() => undefined);
    const counted = { size: 0 };
    let writing: Promise<void> | undefined;
    try {
      await pipeline(limited(head, ended, iterator, options.maxFileSize, counted), (chunks: AsyncIterable<Buffer>) => (writing = writeAll(chunks, upload)));
    } catch (error) {
      // 3. Nothing left behind. pipeline settles as soon as the source fails, while GridFS may still be
      //    writing the chunk before: wait for it, or it would land after the cleanup.
      discard();
      await writing?.catch(() => undefined);
      await removeWritten(store, upload, row._id);
      throw error;
    }
    return pendingFile(store, upload, done, { ...row, size: counted.size });
  };
}
