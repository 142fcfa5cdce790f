// Reads a stored file's bytes (or one range of them) from `<bucket>.chunks` a few chunks at a time. The
// driver's GridFS download stream fetches whole cursor batches with no way to make them smaller, so one
// large download would hold tens of MB; this holds one small batch at a time.
import { Readable } from 'node:stream';
import type { mongo } from 'mongoose';
import type { StoredFileDoc } from './file-store';

/** Chunks per cursor batch: 16 x 255 KiB (4 MB) in memory at most, per download. */
const BATCH_SIZE = 16;

interface ChunkDoc {
  files_id: mongo.ObjectId;
  n: number;
  data: mongo.Binary | Uint8Array;
}

/** The bytes `start`..`end` (inclusive; default the whole file) of `doc`, in order; errors if a chunk is missing. */
export function readChunks(chunks: mongo.Collection, doc: StoredFileDoc, range?: { start: number; end: number }): Readable {
  const start = range?.start ?? 0;
  const end = range ? range.end + 1 : doc.length;
  const first = Math.floor(start / doc.chunkSize);
  const last = Math.ceil(end / doc.chunkSize) - 1;
  async function* bytes() {
    if (end <= start) return;
    const cursor = chunks
      .find<ChunkDoc>({ files_id: doc._id, n: { $gte: first, $lte: last } }, { batchSize: BATCH_SIZE })
      .sort({ n: 1 });
    try {
      let expected = first;
      for await (const chunk of cursor) {
        if (chunk.n !== expected) throw new Error(`content-router: chunk ${expected} of file ${doc._id.toHexString()} is missing`);
        const data = chunk.data instanceof Uint8Array ? chunk.data : chunk.data.buffer;
        const offset = chunk.n * doc.chunkSize;
        yield Buffer.from(data.buffer, data.byteOffset, data.byteLength).subarray(Math.max(start - offset, 0), Math.min(end - offset, data.byteLength));
        expected += 1;
      }
      if (expected !== last + 1) throw new Error(`content-router: file ${doc._id.toHexString()} ends at chunk ${expected - 1} of ${last}`);
    } finally {
      await cursor.close();
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}
