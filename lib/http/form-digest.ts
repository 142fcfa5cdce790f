// The digest of a multipart form as it was sent: its text fields and, for each file, its field, name, declared
// type and a SHA-256 of its bytes, hashed while the route's own reader streams them on. Not the raw body: a
// client repeating an upload builds a new multipart boundary, and the same form must give the same digest.
// A feature asks for it before the form is read (digestFormOf); the multipart reader feeds it.
import { createHash } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import type { Request } from 'express';

/** One file of a form, as digested. */
interface DigestedFile {
  field: string;
  name: string;
  type: string;
  sha256: string;
  size: number;
}

/**
 * How much a form held: a repeat holding more (more files or text fields, a file larger than all these
 * files together, a text field longer than the longest of these) cannot be the same form.
 */
export interface FormSize {
  readonly files: number;
  readonly fileBytes: number;
  readonly fields: number;
  /** The bytes of its longest text value. */
  readonly fieldBytes: number;
}

/** A form's digest and its size, once the form is read. */
export interface FormDigestResult {
  readonly digest: string;
  readonly size: FormSize;
}

/** The text values of fields as the reader built them (a repeated name holds a list, `a[b]` an object). */
function textValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(textValues);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(textValues);
  return [];
}

/** Collects one form's digest while it is read. */
export class FormDigest {
  private readonly files: DigestedFile[] = [];
  private result: FormDigestResult | undefined;

  /** The file's bytes, passed on unchanged and hashed on the way; the source's failure is the stream's. */
  file(field: string, name: string, type: string, source: Readable): Readable {
    const entry: DigestedFile = { field, name, type, sha256: '', size: 0 };
    this.files.push(entry);
    const hash = createHash('sha256');
    const pass = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        entry.size += chunk.length;
        callback(null, chunk);
      },
      flush(callback) {
        entry.sha256 = hash.digest('hex');
        callback();
      },
    });
    // pipe() does not forward errors: a cut-off part (client gone) must fail whoever reads the file.
    source.once('error', (error) => pass.destroy(error));
    return source.pipe(pass);
  }

  /** Ends the form with its text fields (as the reader built them); the files are sorted by field. */
  finish(fields: Record<string, unknown>): FormDigestResult {
    const files = [...this.files].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
    const digest = createHash('sha256').update(JSON.stringify({ fields, files })).digest('hex');
    const values = textValues(fields);
    const size: FormSize = {
      files: files.length,
      fileBytes: files.reduce((sum, file) => sum + file.size, 0),
      fields: values.length,
      fieldBytes: values.reduce((longest, value) => Math.max(longest, Buffer.byteLength(value)), 0),
    };
    this.result = { digest, size };
    return this.result;
  }

  /** The digest, once finish() ran. */
  get value(): FormDigestResult | undefined {
    return this.result;
  }
}

/** The digests asked for, by request. */
const requested = new WeakMap<Request, FormDigest>();

/** Asks for the digest of `req`'s form: the multipart reader feeds it as it reads the form (if it does). */
export function digestFormOf(req: Request): FormDigest {
  let digest = requested.get(req);
  if (!digest) {
    digest = new FormDigest();
    requested.set(req, digest);
  }
  return digest;
}

/** The digest asked for `req`, if any (the multipart reader's side). */
export function requestedFormDigest(req: Request): FormDigest | undefined {
  return requested.get(req);
}
