// Deleting a file, one sequence for DELETE /uploads/:filename and api.local.deleteUpload, a user of the
// write pipeline (write/pipeline.ts): access -> the file, if the delete rule allows this caller that one ->
// store: remove its record and bytes, recorded at the seam -> publish, so an answer that populated it is
// read again, as after any record's delete.
import { NotFoundError } from '../errors';
import { checkAccess } from './access';
import { matchesConstraint } from './constraint-match';
import type { FileCollection } from './file-storage';
import type { RawDoc } from '../schema/to-record';
import type { OperationArgs } from './runtime';
import { refusalsNoted } from './refused-write';
import { storeOne } from './write/pipeline';
import { changeMadeBy, publishChange } from './write/stored-change';

export interface DeleteFileArgs extends Omit<OperationArgs, 'collection'> {
  collection: FileCollection;
  /** The stored name (the last segment of the file's url). */
  filename: string;
}

/** Deletes one file; throws NotFoundError when there is none the caller may delete. */
export function deleteFile(args: DeleteFileArgs): Promise<{ deleted: true }> {
  // A refusal (401, 403) is told to the audit log as a refused file delete.
  return refusalsNoted({ ...args, action: 'upload.delete' }, () => removeFile(args));
}

async function removeFile(args: DeleteFileArgs): Promise<{ deleted: true }> {
  const { collection, filename } = args;
  // 1. Access: a caller the rule refuses outright is refused before the file is looked up.
  const constraint = await checkAccess({ ...args, op: 'delete' });
  // 2. The file, within the rule. A file never changes once stored, so the row checked is the one removed;
  //    one outside the rule is, to this caller, one that does not exist.
  const row = await collection.storage.findByName(filename);
  if (!row || !(await matchesConstraint(args, row, constraint))) throw new NotFoundError(`No file "${filename}".`);
  // 3. Its record and every byte; someone else may have been first.
  const change = await storeOne(args, async () => {
    if (!(await collection.storage.remove(row._id))) return null;
    return { collection, type: 'delete', operation: 'delete', id: row._id.toHexString(), before: row as unknown as RawDoc, ...changeMadeBy(args), idOnly: true };
  });
  if (!change) throw new NotFoundError(`No file "${filename}".`);
  // 4. Answers that populated it are stale now.
  publishChange(args, change);
  return { deleted: true };
}
