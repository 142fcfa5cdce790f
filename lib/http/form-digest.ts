// The digest of a multipart form as it was sent: its text fields and, for each file, its field, name, declared
// type and a SHA-256 of its bytes, hashed while the route's own reader streams them on. Not the raw body: a
// client repeating an upload builds a new multipart boundary, and the same form must give the same digest.
// A feature sets one as its request's form observer before the form is read; the multipart reader feeds it.
import { createHash } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import type { Request, Response } from 'express';
import { type FormObserver, type FormSize, observeForm } from './multipart';

/** One file of a form, as digested. */
interface DigestedFile {
  field: string;
  name: string;
  type: string;
  sha256: string;
  size: number;
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
export class FormDigest implements FormObserver {
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

/**
 * Reads the form of `req` only for its digest, keeping nothing (observeForm): undefined as soon as it holds
 * more than `size`, the size of the form it is compared with.
 */
export async function readFormDigest(req: Request, res: Response, size: FormSize): Promise<string | undefined> {
  const digest = new FormDigest();
  return (await observeForm(req, res, digest, size)) ? digest.value?.digest : undefined;
}
