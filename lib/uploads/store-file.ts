// Streams one file into GridFS through the driver's GridFSBucket: the first bytes decide its type before
// anything is written, the size is counted as it flows, and a file that fails for any reason (too large,
// client gone, database error) leaves neither its files document nor a single chunk behind.
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import mongoose, { type mongo } from 'mongoose';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors';
import { chooseExtension, createStoredName, sanitizeOriginalName } from './file-names';
import type { FileMetadata, FileStore, StoredFileDoc } from './file-store';
import { SNIFF_BYTES, detectMimeType } from './mime-policy';
import type { ResolvedUploadOptions } from './upload-options';

/** One file to store. */
export interface StoreFileInput {
  source: Readable;
  /** The client's file name (sanitized here). */
  originalName: string | undefined;
  declaredType: string | undefined;
  alt?: string;
  uploadedBy?: string;
  /**
   * What to do with the rest of `source` when the file is refused: HTTP drains it (multer answers once the
   * request body is read), the local API destroys it.
   */
  discard: 'drain' | 'destroy';
}

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

/** The head again, then the rest, failing with 413 as soon as the count passes `maxFileSize`. */
function limited(head: Buffer, ended: boolean, iterator: AsyncIterator<Buffer>, maxFileSize: number): Readable {
  const tooLarge = () => new PayloadTooLargeError(`The file is larger than the limit of ${maxFileSize} bytes.`);
  async function* bytes() {
    let count = head.length;
    if (count > maxFileSize) throw tooLarge();
    if (count) yield head;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      const chunk = asBuffer(next.value);
      count += chunk.length;
      if (count > maxFileSize) throw tooLarge();
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
 * every chunk that will ever be written. Ends with the files document written.
 */
async function writeAll(chunks: AsyncIterable<Buffer>, upload: mongo.GridFSBucketWriteStream): Promise<void> {
  // Listens from the start: the stream's errors reach the writes' callbacks, and must not go uncaught.
  const done = finished(upload);
  done.catch(() => undefined);
  for await (const chunk of chunks) await write(upload, chunk);
  upload.end();
  await done;
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

export interface FileWriter {
  /** Stores the file; rejects with 413/415 (or the stream's own error) having stored nothing. */
  store(input: StoreFileInput): Promise<StoredFileDoc>;
}

/** The writer of one bucket. */
export function createFileWriter(store: FileStore, options: ResolvedUploadOptions): FileWriter {
  return {
    async store(input) {
      const { source } = input;
      // Not destroyed when we stop reading: multer needs the part drained to finish the request.
      const iterator = source.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      const discard = () => (input.discard === 'drain' ? source.resume() : source.destroy());

      // 1. The type, from the first bytes, before anything is written.
      let head: Buffer;
      let ended: boolean;
      let mimeType: string;
      let ext: string | undefined;
      let bucket: mongo.GridFSBucket;
      try {
        ({ head, ended } = await readHead(iterator));
        ({ mimeType, ext } = await detectMimeType(head, input.declaredType));
        if (options.allowed && !options.allowed(mimeType)) throw new UnsupportedMediaTypeError(`Files of type ${mimeType} are not accepted here.`);
        bucket = await store.bucket();
      } catch (error) {
        discard();
        throw error;
      }

      // 2. Its stored name and metadata.
      const originalName = sanitizeOriginalName(input.originalName);
      const metadata: FileMetadata = { originalName, mimeType };
      if (input.alt !== undefined) metadata.alt = input.alt;
      if (input.uploadedBy !== undefined) metadata.uploadedBy = input.uploadedBy;
      const id = new mongoose.mongo.ObjectId();
      const upload = bucket.openUploadStream(createStoredName(chooseExtension(originalName, ext)), { id, metadata });

      // 3. The bytes, counted against the limit, into GridFS.
      let writing: Promise<void> | undefined;
      try {
        await pipeline(limited(head, ended, iterator, options.maxFileSize), (chunks: AsyncIterable<Buffer>) => (writing = writeAll(chunks, upload)));
        const file = upload.gridFSFile!;
        return { _id: id, filename: file.filename, length: file.length, chunkSize: file.chunkSize, uploadDate: file.uploadDate, metadata };
      } catch (error) {
        // 4. Nothing left behind. pipeline settles as soon as the source fails, while GridFS may still be
        //    writing the chunk before: wait for it, or it would land after the cleanup.
        discard();
        await writing?.catch(() => undefined);
        await removeWritten(store, upload, id);
        throw error;
      }
    },
  };
}
