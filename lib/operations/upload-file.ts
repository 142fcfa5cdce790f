// Storing a file, one sequence for POST /upload and api.local.upload, a user of the write pipeline
// (write/pipeline.ts): access (before a byte of the upload is read) -> read the upload, its file stored as
// it arrives, checked against the create rule before a byte of it is written -> check the other fields ->
// store: commit the file's record, alt in it, and record the change at the seam -> publish.
import { ValidationError } from '../errors';
import type { WhereNode } from '../query/types';
import { checkAccess } from './access';
import { assertWithinConstraints } from './constraint-match';
import type { FileCollection, FileRow, IncomingFile, PendingFile, UploadedFile } from './file-storage';
import type { RawDoc } from '../schema/to-record';
import type { OperationArgs } from './runtime';
import { refusalsNoted } from './refused-write';
import { storeOne } from './write/pipeline';
import { type StoredChange, changeMadeBy, publishChange } from './write/stored-change';

/** Longest `alt` text, in characters. */
export const MAX_ALT_LENGTH = 1000;

/** The upload's content, however it arrives: a multipart body, or a local caller's bytes and options. */
export interface UploadSource {
  /**
   * Reads the upload, handing its file to `store` as the file arrives; resolves with the other fields once
   * all of it is read (the file may come before or after them). Called only once access allows the upload.
   */
  read(store: (file: IncomingFile) => Promise<void>): Promise<Record<string, unknown>>;
}

export interface UploadFileArgs extends Omit<OperationArgs, 'collection'> {
  collection: FileCollection;
  upload: UploadSource;
}

/** Fields of the file record known only once the whole upload is read: its size, and an alt text sent after the file. */
const KNOWN_LATE: ReadonlySet<string> = new Set(['size', 'alt']);

/** True when the condition names one of `fields`. */
function namesField(node: WhereNode, fields: ReadonlySet<string>): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.nodes.some((child) => namesField(child, fields));
    case 'const':
      return false;
    default:
      return fields.has(node.field.name);
  }
}

/** Checks the alt text sent with a file. */
function checkAlt(alt: unknown): string | undefined {
  if (alt === undefined) return undefined;
  if (typeof alt !== 'string' || alt.length > MAX_ALT_LENGTH) {
    throw new ValidationError('The upload is not valid.', [{ field: 'alt', message: `alt must be one text of at most ${MAX_ALT_LENGTH} characters`, code: 'invalid_alt' }]);
  }
  return alt;
}

/** The fields sent with the file: `alt`, and nothing else. */
function checkFields(fields: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(fields).filter((key) => key !== 'alt');
  if (unknown.length) {
    throw new ValidationError('The upload is not valid.', unknown.map((field) => ({ field, message: `unknown field "${field}"`, code: 'unknown_field' })));
  }
  return checkAlt(fields.alt);
}

/**
 * Reads the upload, storing its one file (not yet committed) as it arrives. When the read fails, what was
 * stored is removed, also when the storing finishes only after the read gave up (a client gone).
 */
async function readUpload(args: UploadFileArgs, admit: (row: FileRow) => Promise<void>): Promise<{ pending: PendingFile; fields: Record<string, unknown> }> {
  const { storage } = args.collection;
  let pending: PendingFile | undefined;
  let files = 0;
  let failed = false;
  const store = async (file: IncomingFile): Promise<void> => {
    if (++files > 1) throw new ValidationError('Send exactly one file.', [{ field: 'file', message: 'only one file is accepted', code: 'unexpected_file' }]);
    const stored = await storage.write(file, args.user?.id, admit);
    if (failed) return stored.abort();
    pending = stored;
  };
  let fields: Record<string, unknown>;
  try {
    fields = await args.upload.read(store);
  } catch (error) {
    failed = true;
    await pending?.abort();
    throw error;
  }
  if (!pending) throw new ValidationError('The upload has no file.', [{ field: 'file', message: 'a file is required in the field "file"', code: 'required' }]);
  return { pending, fields };
}

/** Stores one file and returns it as the API shows it. */
export function uploadFile(args: UploadFileArgs): Promise<UploadedFile> {
  // A refusal (401, 403, 409) is told to the audit log as a refused upload.
  return refusalsNoted({ ...args, action: 'upload' }, () => storeUpload(args));
}

async function storeUpload(args: UploadFileArgs): Promise<UploadedFile> {
  const { runtime, collection } = args;
  // 1. Access, before a byte of the upload is read: a refused caller never streams a file in.
  const constraint = await checkAccess({ ...args, op: 'create' });
  // A rule on what is known only at the end waits for it; any other is checked on the file's first bytes.
  const late = constraint !== undefined && namesField(constraint, KNOWN_LATE);
  const admit = async (row: FileRow) => {
    if (!late) await assertWithinConstraints(args, [{ doc: row, constraint }]);
  };

  // 2. The upload, its file stored as it arrives (no one sees it yet).
  const { pending, fields } = await readUpload(args, admit);
  let change: StoredChange;
  try {
    // 3. The other fields.
    const alt = checkFields(fields);
    // 4. A rule naming the size or the alt text, now that they are known.
    if (late) await assertWithinConstraints(args, [{ doc: alt === undefined ? pending.row : { ...pending.row, alt }, constraint }]);
    // 5. The file's record, alt in it: from now on the file exists (the storage's own write: GridFS).
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the store function never answers null
    change = (await storeOne(args, async () => {
      const row = await pending.commit(alt);
      return { collection, type: 'create', operation: 'create', id: row._id.toHexString(), after: row as unknown as RawDoc, ...changeMadeBy(args), idOnly: true };
    }))!;
  } catch (error) {
    await pending.abort();
    throw error;
  }

  // 6. Everyone who derives answers from files (the response cache) is told.
  publishChange(args, change);
  return collection.storage.toRecord(change.after as unknown as FileRow, args.req?.baseUrl ?? runtime.config.prefix);
}
