// file-type (v16, the last CommonJS line) over a file's first bytes, safe for any bytes a client sends.
// On hostile input v16 has two defects: a head that ends or breaks inside a format's structure rejects
// (End-Of-Stream escapes its own catch, which lacks an await; corrupt lengths throw RangeError), and an
// ASF header object smaller than its own header walks its parser backwards forever, blocking the event
// loop (fixed upstream only in the ESM-only v21.3.1, commit 319abf8). Both are answered here, before the policy.
import { fromBuffer } from 'file-type';

/** What the first bytes show: a format, no known format, or the start of one that the rest breaks. */
export type Sniffed = { kind: 'format'; mimeType: string; ext: string } | { kind: 'unknown' } | { kind: 'broken' };

/** ASF's header object GUID, as far as file-type checks it. */
const ASF_HEADER = Buffer.from([0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9]);
/** The Stream Properties object GUID, where file-type's walk over ASF objects ends. */
const ASF_STREAM_PROPERTIES = Buffer.from('9107dcb7b7a9cf118ee600c00c205365', 'hex');
/** An ASF object header: a GUID and a 64-bit size that counts the header itself. */
const ASF_OBJECT_HEADER = 24;
/** Where file-type starts walking: past the header object's own fields. */
const ASF_FIRST_OBJECT = 30;

/**
 * The head, cut where file-type's walk over ASF header objects would stop moving forward (an object
 * smaller than its own header); file-type then reports plain ASF there, as its fixed versions do.
 */
function withoutAsfLoop(head: Buffer): Buffer {
  if (!head.subarray(0, ASF_HEADER.length).equals(ASF_HEADER)) return head;
  for (let at = ASF_FIRST_OBJECT; at + ASF_OBJECT_HEADER < head.length; ) {
    if (head.subarray(at, at + ASF_STREAM_PROPERTIES.length).equals(ASF_STREAM_PROPERTIES)) break;
    const size = Number(head.readBigUInt64LE(at + 16));
    if (size < ASF_OBJECT_HEADER) return head.subarray(0, at);
    at += size;
  }
  return head;
}

/** Sniffs `head`; MIME types come lowercased (file-type reports `video/MP1S`; types are case-insensitive). */
export async function sniffFormat(head: Uint8Array): Promise<Sniffed> {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  let found: Awaited<ReturnType<typeof fromBuffer>>;
  try {
    found = await fromBuffer(withoutAsfLoop(bytes));
  } catch {
    // Only these bytes went in: whatever the parser threw, they begin a format they do not complete.
    return { kind: 'broken' };
  }
  return found ? { kind: 'format', mimeType: found.mime.toLowerCase(), ext: found.ext } : { kind: 'unknown' };
}
