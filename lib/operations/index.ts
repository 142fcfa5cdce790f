// The operations every entry point shares: REST handlers, the local API, custom endpoints, realtime;
// storing and deleting files among them.
export { find, type FindArgs } from './find';
export { count, type CountArgs } from './count';
export type { FindResult } from './find-result';
export { findById, type FindByIdArgs } from './find-by-id';
export { create, type CreateArgs } from './create';
export { createMany, type CreateManyArgs } from './create-many';
export { update, type UpdateArgs } from './update';
export { deleteRecord, restoreRecord, type DeleteArgs } from './delete';
export { findGlobal, updateGlobal, type GlobalArgs } from './globals';
export { uploadFile, type UploadFileArgs, type UploadSource } from './upload-file';
export { deleteFile, type DeleteFileArgs } from './delete-file';
export type { FileCollection, FileRow, FileStorage, IncomingFile, PendingFile, UploadedFile } from './file-storage';
export { checkAccess, scopeAllows, type AccessOperation } from './access';
export { type Runtime, type CollectionRuntime, createCollectionRuntime, getCollection, publishWrite } from './runtime';
export { type ChangeEvent, type ChangeBus, createChangeBus } from './change-bus';
