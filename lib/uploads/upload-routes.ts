// The upload routes as route-table entries, thin: POST /upload reads its multipart form with the router's
// reader and hands it to the uploadFile operation, DELETE /uploads/:filename calls deleteFile, and GET and
// HEAD /uploads/:filename stream the file.
import type { Request, Response } from 'express';
import { NotFoundError } from '../errors';
import { type MultipartReader, createMultipartReader } from '../http/multipart';
import { endJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import { refusalsHeard } from '../http/refused-write-route';
import { reachedUnlessRefused } from '../http/route-reach';
import type { JsonSchema, RouteCaller, RouteDef } from '../http/route-table';
import { deleteFile } from '../operations/delete-file';
import type { FileCollection } from '../operations/file-storage';
import type { Runtime } from '../operations/runtime';
import { MAX_ALT_LENGTH, type UploadSource, uploadFile } from '../operations/upload-file';
import { STORED_NAME } from './file-names';
import type { FileStore, StoredFileDoc } from './file-store';
import { serveFile } from './serve-file';
import { uploadConstraint, withConstraint } from './upload-access';
import { checkAccess } from '../operations/access';
import type { ResolvedUploadOptions } from './upload-options';


const UPLOAD_BODY: JsonSchema = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The file; exactly one.' },
    alt: { type: 'string', maxLength: MAX_ALT_LENGTH, description: 'Alternative text.' },
  },
};

/** The upload as a multipart form carries it: its file streams to the operation as it arrives. */
function formUpload(read: MultipartReader, req: Request, res: Response): UploadSource {
  return {
    async read(store) {
      const form = await read(req, res, (file) => store({ source: file.stream, originalName: file.originalName, declaredType: file.mimeType, discard: 'drain' }));
      return form.fields;
    },
  };
}

const FILE_ERRORS = { 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed' }, 404: { description: 'No such file' } };

/** The three routes, on one bucket. */
export function uploadRoutes(args: { runtime: Runtime; store: FileStore; files: FileCollection; options: ResolvedUploadOptions }): RouteDef[] {
  const { runtime, store, files, options } = args;
  // One file, its alt text; room for any 1000 characters of alt (3 bytes of UTF-8 each, at most).
  const readForm = createMultipartReader({ files: new Map([['file', options.maxFileSize]]), fields: 1, fieldSize: 3 * MAX_ALT_LENGTH });

  async function findReadable(req: Request): Promise<StoredFileDoc> {
    const filename = String(req.params.filename);
    const constraint = await uploadConstraint({ runtime, req, user: await requestUser(runtime, req) }, files.descriptor);
    const doc = STORED_NAME.test(filename) ? await store.findOne(withConstraint({ filename }, constraint)) : null;
    if (!doc) throw new NotFoundError(`No file "${filename}".`);
    return doc;
  }

  // A caller the files' create or delete rule refuses outright (anonymous by default, a key without the write
  // scope) has no such route in its per-caller document.
  const reachBy = (op: 'create' | 'delete') => ({ user, req }: RouteCaller) =>
    reachedUnlessRefused(() => checkAccess({ runtime, user, req, collection: { descriptor: files.descriptor }, op }));

  return [
    {
      method: 'post',
      path: '/upload',
      operationId: 'uploads.create',
      summary: 'Upload a file',
      tags: ['uploads'],
      auth: 'optional',
      reach: reachBy('create'),
      // Not read in the parse phase: the handler streams the file to storage as it arrives, once the
      // create rule let it through, so the client's pace is no database wait (no deadline).
      body: { type: 'multipart', shape: { kind: 'schema', schema: UPLOAD_BODY }, required: true },
      config: { deadline: false, idempotent: true },
      responses: {
        201: { description: 'The stored file', shape: { kind: 'file' }, headers: { Location: { description: "The file's URL (its `url`)", schema: { type: 'string' } } } },
        400: { description: 'No file, a second file or one in another field, an unknown field, an alt text too long, or a malformed body' },
        ...FILE_ERRORS,
        413: { description: 'The file is larger than uploads.maxFileSize, or the form holds more (fields, parts, bytes of a field) than this route takes' },
        415: { description: 'Not multipart, a type not allowed, or a type the content contradicts' },
      },
      handler: refusalsHeard({ runtime, collection: files, action: 'upload' }, async (req, res) => {
        const user = await requestUser(runtime, req);
        const file = await uploadFile({ runtime, collection: files, user, req, upload: formUpload(readForm, req, res) });
        // Where the file is served, as a created record's Location names it.
        endJson(res.status(201).location(file.url), file);
      }),
    },
    {
      method: 'get',
      path: '/uploads/:filename',
      operationId: 'uploads.get',
      summary: 'Download a file (HEAD for its headers only; Range for a part)',
      tags: ['uploads'],
      auth: 'optional',
      // Without a read rule a file is the same for every caller (a refused credential is a 401, never kept).
      config: { variesByCaller: options.access.read !== undefined },
      responses: {
        200: { description: 'The file' },
        206: { description: 'The requested byte range' },
        304: { description: 'Not modified' },
        ...FILE_ERRORS,
        416: { description: 'The range is outside the file' },
      },
      async handler(req, res) {
        await serveFile(req, res, store, await findReadable(req), { cacheControl: options.cacheControl });
      },
    },
    {
      method: 'delete',
      path: '/uploads/:filename',
      operationId: 'uploads.delete',
      summary: 'Delete a file',
      tags: ['uploads'],
      auth: 'optional',
      reach: reachBy('delete'),
      responses: {
        200: { description: 'Deleted', shape: { kind: 'schema', schema: { type: 'object', required: ['deleted'], properties: { deleted: { const: true } } } } },
        ...FILE_ERRORS,
      },
      handler: refusalsHeard({ runtime, collection: files, action: 'upload.delete' }, async (req, res) => {
        const user = await requestUser(runtime, req);
        endJson(res, await deleteFile({ runtime, collection: files, user, req, filename: String(req.params.filename) }));
      }),
    },
  ];
}
