// Shared by the upload specs: real file bytes (a PNG, a JPEG header), GridFS document counts, and a raw
// multipart request over node:http for bodies too large to build in memory or meant to be cut off.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import type { Connection } from 'mongoose';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 2x2 RGB PNG. */
export function pngBytes(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The start of a JFIF JPEG (what file-type reads), padded with random bytes. */
export function jpegBytes(size = 2048): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]), randomBytes(size)]);
}

/** Documents in `<bucket>.files` and `<bucket>.chunks`. */
export async function countStored(connection: Connection, bucket = 'uploads'): Promise<{ files: number; chunks: number }> {
  const db = connection.db!;
  const [files, chunks] = await Promise.all([db.collection(`${bucket}.files`).countDocuments(), db.collection(`${bucket}.chunks`).countDocuments()]);
  return { files, chunks };
}

export interface RawUpload {
  /** The request, to write the file's bytes to (then call finish) or destroy. */
  req: http.ClientRequest;
  /** Writes the closing boundary and resolves with the response. */
  finish(): Promise<{ status: number; body: string }>;
  response: Promise<{ status: number; body: string }>;
}

/** Starts `POST <path>` with a multipart body whose single file part is written by the caller. */
export function startRawUpload(server: http.Server, path: string, file: { name: string; type: string }, headers: Record<string, string> = {}): RawUpload {
  const boundary = `----spec${randomBytes(8).toString('hex')}`;
  const { port } = server.address() as AddressInfo;
  const req = http.request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked', ...headers },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
  });
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`);
  return {
    req,
    response,
    finish() {
      req.end(`\r\n--${boundary}--\r\n`);
      return response;
    },
  };
}

/** Writes `total` pseudo-random bytes to `req` in 1 MiB pieces, honouring backpressure; returns their sha256. */
export async function writeRandom(req: http.ClientRequest, total: number): Promise<string> {
  const hash = createHash('sha256');
  const piece = 1024 * 1024;
  let seed = randomBytes(piece);
  for (let sent = 0; sent < total; sent += piece) {
    const size = Math.min(piece, total - sent);
    // A different piece each time (cheap): rotate the seed by one byte.
    seed = Buffer.concat([seed.subarray(1), seed.subarray(0, 1)]);
    const chunk = seed.subarray(0, size);
    hash.update(chunk);
    if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve));
  }
  return hash.digest('hex');
}

/** GETs `path` and returns the status, headers and sha256 of the body, streaming (never holding it). */
export function downloadHash(server: http.Server, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; sha256: string; size: number }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        const hash = createHash('sha256');
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          hash.update(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, sha256: hash.digest('hex'), size }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
