// File uploads as a feature: a GridFS bucket as the file operations' storage, the upload/serve/delete
// routes, the id check and population of `upload` fields, and api.local.upload()/deleteUpload(), which
// run the same operations as the routes. Present only when the `uploads` option is set.
import { Readable } from 'node:stream';
import type { Feature } from '../http/feature';
import { type LocalApi, actor } from '../local/local-api';
import { deleteFile } from '../operations/delete-file';
import type { FileCollection } from '../operations/file-storage';
import { uploadFile } from '../operations/upload-file';
import { createFileStore } from './file-store';
import { createGridFsStorage } from './gridfs-storage';
import { describeUploads } from './upload-access';
import { createUploadIdCheck, createUploadSource } from './upload-fields';
import { type ResolvedUploadOptions, parseUploadsOptions } from './upload-options';
import { uploadRoutes } from './upload-routes';

function toReadable(source: NodeJS.ReadableStream | Uint8Array): Readable {
  if (source instanceof Uint8Array) return Readable.from([Buffer.from(source.buffer, source.byteOffset, source.byteLength)], { objectMode: false });
  if (source instanceof Readable) return source;
  return new Readable().wrap(source);
}

/** `POST /upload`, `GET|HEAD|DELETE /uploads/:filename`, upload fields, api.local.upload (docs/uploads.md). */
export const uploadsFeature: Feature<ResolvedUploadOptions | undefined> = {
  name: 'uploads',
  options: parseUploadsOptions,
  create(runtime, lifecycle, options) {
    if (!options) return undefined;
    const store = createFileStore(runtime.connection, options.bucket);
    const files: FileCollection = { descriptor: describeUploads(options.access), storage: createGridFsStorage(store, options, runtime.config.clock) };

    const upload: LocalApi['upload'] = async (source, uploadOptions) => {
      const readable = toReadable(source);
      try {
        return await uploadFile({
          runtime,
          collection: files,
          ...actor(uploadOptions),
          upload: {
            async read(store) {
              await store({ source: readable, originalName: uploadOptions.filename, declaredType: uploadOptions.mimeType, discard: 'destroy' });
              return uploadOptions.alt === undefined ? {} : { alt: uploadOptions.alt };
            },
          },
        });
      } catch (error) {
        // Refused before it was read (access), or part-way: the caller's stream is not left open.
        readable.destroy();
        throw error;
      }
    };
    const deleteUpload: LocalApi['deleteUpload'] = (filename, deleteOptions) => deleteFile({ runtime, collection: files, filename, ...actor(deleteOptions) });

    lifecycle.onReady.push(() => store.ensureIndexes());
    return {
      routes: uploadRoutes({ runtime, store, files, options }),
      hooks: {
        transformInput: [createUploadIdCheck(runtime, store, files.descriptor)],
        relationSources: [createUploadSource(store, files.descriptor, runtime.config.prefix)],
      },
      local: { upload, deleteUpload },
    };
  },
};
