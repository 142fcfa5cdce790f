// Streams one file into GridFS through multer-gridfs-storage: the first bytes decide its type before
// anything is written, the size is counted as it flows, and a file that fails for any reason (too large,
// client gone, database error) leaves neither its files document nor a single chunk behind.
import { Readable } from 'node:stream';
import type { Request } from 'express';
import mongoose, { type mongo } from 'mongoose';
import { GridFsStorage } from 'multer-gridfs-storage';
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
  req?: Request;
  /**
   * What to do with the rest of `source` when the file is refused: HTTP drains it (multer answers once the
   * request body is read), the local API destroys it.
   */
  discard: 'drain' | 'destroy';
}

/** The settings multer-gridfs-storage names a file with, carried on the file object it is given. */
interface SettingsCarrier {
  gridfs: { id: mongo.ObjectId; filename: string; bucketName: string; metadata: FileMetadata };
}

/** Bytes read ahead of GridFS while it writes a chunk (it writes them one at a time). */
const STREAM_BUFFER = 1024 * 1024;

/** Most time a failed upload waits for its in-flight chunk writes before removing them anyway. */
const SETTLE_LIMIT_MS = 30_000;

/** multer-gridfs-storage, remembering each open GridFS stream so a failed one can be cleaned up after it settles. */
class TrackedGridFsStorage extends GridFsStorage {
  readonly open = new Map<string, WriteStreamState>();

  protected override createStream(options: { id?: mongo.ObjectId; filename: string; bucketName: string; metadata?: mongo.Document | null }) {
    const stream = super.createStream(options);
    this.open.set(String(options.id), stream);
    return stream;
  }
}

/** A chunk as a Buffer without copying it (a string chunk of a text-mode stream is encoded). */
function asBuffer(chunk: Buffer | Uint8Array | string): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  return typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** The part of a GridFS write stream the cleanup reads (the driver's own bookkeeping of chunk writes in flight). */
interface WriteStreamState {
  state: { outstandingRequests?: number };
}

/** Chunk writes already sent finish even after the stream is destroyed: wait for them so none lands after the cleanup. */
async function settle(stream: WriteStreamState | undefined): Promise<void> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  const state = stream?.state;
  while (state?.outstandingRequests && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

export interface FileWriter {
  /** Stores the file; rejects with 413/415 (or the stream's own error) having stored nothing. */
  store(input: StoreFileInput): Promise<StoredFileDoc>;
  close(): void;
}

/** The writer of one bucket; the GridFS storage engine is built on first use, once the connection is open. */
export function createFileWriter(store: FileStore, options: ResolvedUploadOptions): FileWriter {
  let engine: Promise<TrackedGridFsStorage> | undefined;
  const getEngine = () => {
    engine ??= store.db().then(
      (db) => {
        const file = (_req: Request, carrier: unknown) => (carrier as SettingsCarrier).gridfs;
        // The same driver at run time; its type declarations are two copies (mongoose's and the top-level one).
        return new TrackedGridFsStorage({ db, file } as unknown as ConstructorParameters<typeof GridFsStorage>[0]);
      },
      (error: unknown) => {
        engine = undefined; // the next upload tries again
        throw error;
      },
    );
    return engine;
  };

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

  /** The head again, then the rest, failing with 413 as soon as the count passes the limit. */
  function limited(head: Buffer, ended: boolean, iterator: AsyncIterator<Buffer>): Readable {
    const tooLarge = () => new PayloadTooLargeError(`The file is larger than the limit of ${options.maxFileSize} bytes.`);
    async function* bytes() {
      let count = head.length;
      if (count > options.maxFileSize) throw tooLarge();
      if (count) yield head;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        const chunk = asBuffer(next.value);
        count += chunk.length;
        if (count > options.maxFileSize) throw tooLarge();
        yield chunk;
      }
    }
    return Readable.from(bytes(), { objectMode: false, highWaterMark: STREAM_BUFFER });
  }

  return {
    async store(input) {
      const { source } = input;
      // Not destroyed when we stop reading: multer needs the part drained to finish the request.
      const iterator = source.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      const discard = () => (input.discard === 'drain' ? source.resume() : source.destroy());
      let head: Buffer;
      let ended: boolean;
      let mimeType: string;
      let ext: string | undefined;
      let gridfs: TrackedGridFsStorage;
      try {
        ({ head, ended } = await readHead(iterator));
        ({ mimeType, ext } = await detectMimeType(head, input.declaredType));
        if (options.allowed && !options.allowed(mimeType)) throw new UnsupportedMediaTypeError(`Files of type ${mimeType} are not accepted here.`);
        gridfs = await getEngine();
      } catch (error) {
        discard();
        throw error;
      }
      const originalName = sanitizeOriginalName(input.originalName);
      const metadata: FileMetadata = { originalName, mimeType };
      if (input.alt !== undefined) metadata.alt = input.alt;
      if (input.uploadedBy !== undefined) metadata.uploadedBy = input.uploadedBy;
      const id = new mongoose.mongo.ObjectId();
      const carrier: SettingsCarrier = {
        gridfs: { id, filename: createStoredName(chooseExtension(originalName, ext)), bucketName: store.bucketName, metadata },
      };
      try {
        const stored = await gridfs.fromStream(limited(head, ended, iterator), input.req as Request, carrier as unknown as Express.Multer.File);
        return {
          _id: id,
          filename: stored.filename,
          length: stored.size,
          chunkSize: stored.chunkSize,
          uploadDate: stored.uploadDate,
          metadata,
        };
      } catch (error) {
        discard();
        await settle(gridfs.open.get(String(id)));
        // The upload's own error is the answer; a removal that fails too (database gone) must not hide it.
        await store.remove(id).catch(() => undefined);
        throw error;
      } finally {
        gridfs.open.delete(String(id));
      }
    },
    close() {
      void engine?.then((storage) => storage.close());
    },
  };
}
