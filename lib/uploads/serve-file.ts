// Answers GET and HEAD for one stored file: validators and 304s, a single byte range (206/416), safe
// headers for types a browser would run, and the bytes streamed from GridFS, never held in memory.
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { RangeNotSatisfiableError } from '../errors';
import { isNotModified } from '../http/conditional-get';
import type { FileStore, StoredFileDoc } from './file-store';
import { isActiveType } from './mime-policy';
import { readChunks } from './read-chunks';

/** The byte range to send: the whole file, or one satisfiable range. */
function chooseRange(req: Request, size: number, etag: string, lastModified: string): { start: number; end: number } | undefined {
  if (!req.headers.range) return undefined;
  // If-Range: a range of another version of the file is no use; send all of this one.
  const ifRange = req.headers['if-range'];
  if (ifRange && ifRange !== etag && ifRange !== lastModified) return undefined;
  const ranges = req.range(size, { combine: true });
  if (ranges === -1) throw new RangeNotSatisfiableError(size);
  // Malformed, not bytes, or several ranges: a server may ignore Range and send the whole file.
  if (ranges === undefined || ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}

/** Streams `doc` (or the requested part of it) to the response; HEAD gets the same headers and no body. */
export async function serveFile(req: Request, res: Response, store: FileStore, doc: StoredFileDoc, options: { cacheControl: string }): Promise<void> {
  const size = doc.length;
  const mimeType = doc.metadata?.mimeType ?? 'application/octet-stream';
  // Stored files never change: the id identifies the bytes exactly.
  const etag = `"${doc._id.toHexString()}"`;
  const lastModified = doc.uploadDate.toUTCString();
  if (isActiveType(mimeType)) {
    res.attachment(doc.metadata?.originalName ?? doc.filename);
    res.set('Content-Security-Policy', 'sandbox');
  }
  res.set({
    'Content-Type': mimeType,
    ETag: etag,
    'Last-Modified': lastModified,
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    // From the uploads options (upload-options.ts): public or private, revalidated or kept for maxAge.
    'Cache-Control': options.cacheControl,
  });
  if (isNotModified(req, res)) {
    res.status(304).end();
    return;
  }
  const range = chooseRange(req, size, etag, lastModified);
  if (range) {
    res.status(206).set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    res.set('Content-Length', String(range.end - range.start + 1));
  } else {
    res.status(200).set('Content-Length', String(size));
  }
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  const download = readChunks(await store.chunks(), doc, range);
  try {
    await pipeline(download, res);
  } catch (error) {
    // Once bytes are on the wire the status is sent: a client gone or a file deleted mid-way ends the
    // response (pipeline destroyed it); only an error before the first byte becomes a problem answer.
    if (!res.headersSent) throw error;
  }
}
