// The file operations' storage (FileStorage) over one GridFS bucket: the writer streams new files in,
// lookups and removal go through the bucket's collections, and rows become the API's file records.
import type { FileStorage } from '../operations/file-storage';
import { STORED_NAME } from './file-names';
import { type FileStore, toFileRow, toUploadedFile } from './file-store';
import { createFileWriter } from './store-file';
import type { ResolvedUploadOptions } from './upload-options';
import type { Clock } from '../util/clock';

/** The storage of the bucket behind `store`; a new file's upload date is `clock`'s time. */
export function createGridFsStorage(store: FileStore, options: ResolvedUploadOptions, clock: Clock): FileStorage {
  return {
    write: createFileWriter(store, options, clock),
    async findByName(filename) {
      // A name of another form was never given by the router: no query for it.
      if (!STORED_NAME.test(filename)) return null;
      const doc = await store.findOne({ filename });
      return doc && toFileRow(doc);
    },
    remove: (id) => store.remove(id),
    toRecord: toUploadedFile,
  };
}
