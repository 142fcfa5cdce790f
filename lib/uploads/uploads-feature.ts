// File uploads as a feature: a GridFS bucket, the upload/serve/delete routes, the id check and population
// of `upload` fields, and api.local.upload(). Present only when the `uploads` option is set.
import { Readable } from 'node:stream';
import type { Feature } from '../http/feature';
import { type LocalApi, actor } from '../local/local-api';
import { accessDenied } from '../operations/access';
import { createFileStore, toUploadedFile } from './file-store';
import { createFileWriter } from './store-file';
import { describeUploads, uploadConstraint, withConstraint } from './upload-access';
import { createUploadIdCheck, createUploadSource } from './upload-fields';
import { resolveUploadOptions, validateUploadsConfig } from './upload-options';
import { checkAlt, uploadRoutes } from './upload-routes';

function toReadable(source: NodeJS.ReadableStream | Uint8Array): Readable {
  if (source instanceof Uint8Array) return Readable.from([Buffer.from(source.buffer, source.byteOffset, source.byteLength)], { objectMode: false });
  if (source instanceof Readable) return source;
  return new Readable().wrap(source);
}

/** `POST /upload`, `GET|HEAD|DELETE /uploads/:filename`, upload fields, api.local.upload (docs/uploads.md). */
export const uploadsFeature: Feature = {
  name: 'uploads',
  validate: validateUploadsConfig,
  create(runtime) {
    const configured = runtime.config.source.uploads;
    if (configured === undefined) return undefined;
    const options = resolveUploadOptions(configured);
    const descriptor = describeUploads(options.access);
    const store = createFileStore(runtime.connection, options.bucket);
    const writer = createFileWriter(store, options);

    const upload: LocalApi['upload'] = async (source, uploadOptions) => {
      const who = { runtime, ...actor(uploadOptions) };
      const constraint = await uploadConstraint(who, descriptor, 'create');
      const stored = await writer.store({
        source: toReadable(source),
        originalName: uploadOptions.filename,
        declaredType: uploadOptions.mimeType,
        alt: checkAlt(uploadOptions.alt),
        uploadedBy: who.user?.id,
        discard: 'destroy',
      });
      if (constraint && !(await store.findOne(withConstraint({ _id: stored._id }, constraint)))) {
        await store.remove(stored._id);
        throw accessDenied(who.user);
      }
      return toUploadedFile(stored, runtime.config.prefix);
    };

    return {
      routes: uploadRoutes({ runtime, store, writer, options, descriptor }),
      hooks: {
        transformInput: [createUploadIdCheck(runtime, store, descriptor)],
        relationSources: [createUploadSource(store, descriptor, runtime.config.prefix)],
      },
      local: { upload },
      async ready() {
        await store.ensureIndexes();
      },
    };
  },
};
