// The upload routes as route-table entries: POST /upload (multipart, through multer), GET and HEAD
// /uploads/:filename (streamed), DELETE /uploads/:filename.
import type { Request, RequestHandler, Response } from 'express';
import multer, { MulterError } from 'multer';
import { ContentError, MalformedBodyError, NotFoundError, PayloadTooLargeError, RequestAbortedError, UnsupportedMediaTypeError, ValidationError } from '../errors';
import { isClientAbort } from '../http/client-abort';
import { requestUser } from '../http/request-user';
import type { JsonSchema, RouteDef } from '../http/route-table';
import { accessDenied } from '../operations/access';
import type { Runtime } from '../operations/runtime';
import type { CollectionDescriptor } from '../schema/descriptors';
import { STORED_NAME } from './file-names';
import { type FileStore, type StoredFileDoc, toUploadedFile } from './file-store';
import { serveFile } from './serve-file';
import type { FileWriter } from './store-file';
import { type UploadCaller, uploadConstraint, withConstraint } from './upload-access';
import type { ResolvedUploadOptions } from './upload-options';

/** Bytes buffered per upload between the request and GridFS. */
const STREAM_BUFFER = 1024 * 1024;

/** Longest `alt` text. */
export const MAX_ALT_LENGTH = 1000;

const UPLOAD_BODY: JsonSchema = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The file; exactly one.' },
    alt: { type: 'string', maxLength: MAX_ALT_LENGTH, description: 'Alternative text.' },
  },
};

/** Checks the alt text sent with a file (HTTP or local). */
export function checkAlt(alt: unknown): string | undefined {
  if (alt === undefined) return undefined;
  if (typeof alt !== 'string' || alt.length > MAX_ALT_LENGTH) {
    throw new ValidationError('The upload is not valid.', [{ field: 'alt', message: `alt must be one text of at most ${MAX_ALT_LENGTH} characters`, code: 'invalid_alt' }]);
  }
  return alt;
}

/** multer's and busboy's errors as the client's mistakes they are. */
function toUploadError(error: unknown, maxFileSize: number): unknown {
  if (error instanceof ContentError) return error;
  if (error instanceof MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE') return new PayloadTooLargeError(`The file is larger than the limit of ${maxFileSize} bytes.`);
    if (error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT') {
      return new ValidationError('Send exactly one file, in the field "file".', [
        { field: error.field || 'file', message: 'only one file is accepted, in the field "file"', code: 'unexpected_file' },
      ]);
    }
    if (error.code === 'LIMIT_FIELD_VALUE') {
      const field = error.field ?? 'alt';
      return new ValidationError('The upload is not valid.', [{ field, message: `${field} must be at most ${MAX_ALT_LENGTH} characters`, code: 'too_long' }]);
    }
    return new ValidationError('The multipart body has too many or too large parts.', [{ field: error.field, message: error.message, code: 'multipart_limit' }]);
  }
  // busboy: a body that is not the multipart it claims to be (no boundary, truncated, bad part headers).
  const message = (error as { message?: string } | null)?.message ?? '';
  if (/multipart|boundary|unexpected end of form|malformed part header|part terminated early/i.test(message)) {
    return new MalformedBodyError('The multipart body is malformed.');
  }
  return error;
}

function runMulter(parse: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void parse(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
  });
}

const FILE_ERRORS = { 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed' }, 404: { description: 'No such file' } };

/** The three routes, on one bucket. */
export function uploadRoutes(args: {
  runtime: Runtime;
  store: FileStore;
  writer: FileWriter;
  options: ResolvedUploadOptions;
  descriptor: CollectionDescriptor;
}): RouteDef[] {
  const { runtime, store, writer, options, descriptor } = args;
  const publicRead = options.access.read === undefined;
  const caller = async (req: Request): Promise<UploadCaller> => ({ runtime, req, user: await requestUser(runtime, req) });

  // The multer engine: every file through the writer (type check, size count, cleanup on failure).
  const storage: multer.StorageEngine = {
    _handleFile(req, file, callback) {
      requestUser(runtime, req)
        .then((user) =>
          writer.store({
            source: file.stream,
            originalName: file.originalname,
            declaredType: file.mimetype,
            alt: typeof req.body?.alt === 'string' ? req.body.alt : undefined,
            uploadedBy: user?.id,
            discard: 'drain',
          }),
        )
        .then((doc) => callback(null, { id: doc._id, filename: doc.filename, size: doc.length, stored: doc } as Partial<Express.Multer.File>), callback);
    },
    _removeFile(_req, file, callback) {
      store.remove((file as unknown as { stored: StoredFileDoc }).stored._id).then(() => callback(null), callback);
    },
  };
  const parse = multer({
    storage,
    // Room for the bytes that arrive while a chunk is being written (GridFS writes chunks one at a time).
    ...({ fileHwm: STREAM_BUFFER } as multer.Options),
    // Browsers send a file name as raw UTF-8 bytes; busboy's default reads them as latin1 (`cafÃ©.png`).
    defParamCharset: 'utf8',
    // One file, its alt text, nothing else; busboy stops reading a file at the size limit.
    limits: { fileSize: options.maxFileSize, files: 1, fields: 4, parts: 6, fieldSize: MAX_ALT_LENGTH + 1, headerPairs: 50 },
  }).single('file');

  async function findFile(req: Request, op: 'read' | 'delete'): Promise<StoredFileDoc> {
    const filename = String(req.params.filename);
    const constraint = await uploadConstraint(await caller(req), descriptor, op);
    const doc = STORED_NAME.test(filename) ? await store.findOne(withConstraint({ filename }, constraint)) : null;
    if (!doc) throw new NotFoundError(`No file "${filename}".`);
    return doc;
  }

  return [
    {
      method: 'post',
      path: '/upload',
      operationId: 'uploads.create',
      summary: 'Upload a file',
      tags: ['uploads'],
      auth: 'optional',
      body: { type: 'multipart', shape: { kind: 'schema', schema: UPLOAD_BODY }, required: true },
      responses: {
        201: { description: 'The stored file', shape: { kind: 'file' } },
        400: { description: 'No file, more than one, an unknown field, or a malformed body' },
        ...FILE_ERRORS,
        413: { description: 'The file is larger than uploads.maxFileSize' },
        415: { description: 'Not multipart, a type not allowed, or a type the content contradicts' },
      },
      async handler(req, res) {
        const who = await caller(req);
        // Checked before a byte is read: a refused caller never streams a file into the database.
        const constraint = await uploadConstraint(who, descriptor, 'create');
        if (!req.is('multipart/form-data')) throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data.');
        // A client gone while access was checked sends nothing more: multer would wait for it forever.
        if (isClientAbort(req)) throw new RequestAbortedError();
        try {
          await runMulter(parse, req, res);
        } catch (error) {
          throw toUploadError(error, options.maxFileSize);
        }
        const stored = (req.file as unknown as { stored?: StoredFileDoc } | undefined)?.stored;
        if (!stored) throw new ValidationError('The upload has no file.', [{ field: 'file', message: 'a file is required in the field "file"', code: 'required' }]);
        try {
          const unknown = Object.keys(req.body ?? {}).filter((key) => key !== 'alt');
          if (unknown.length) {
            throw new ValidationError('The upload is not valid.', unknown.map((field) => ({ field, message: `unknown field "${field}"`, code: 'unknown_field' })));
          }
          const alt = checkAlt(req.body?.alt);
          if (alt !== undefined && stored.metadata?.alt !== alt) {
            // The alt text came after the file in the body: the file was already written.
            await (await store.files()).updateOne({ _id: stored._id }, { $set: { 'metadata.alt': alt } });
            stored.metadata = { ...stored.metadata!, alt };
          }
          if (constraint && !(await store.findOne(withConstraint({ _id: stored._id }, constraint)))) throw accessDenied(who.user);
        } catch (error) {
          await store.remove(stored._id);
          throw error;
        }
        res.status(201).json(toUploadedFile(stored, req.baseUrl));
      },
    },
    {
      method: 'get',
      path: '/uploads/:filename',
      operationId: 'uploads.get',
      summary: 'Download a file (HEAD for its headers only; Range for a part)',
      tags: ['uploads'],
      auth: 'optional',
      responses: {
        200: { description: 'The file' },
        206: { description: 'The requested byte range' },
        304: { description: 'Not modified' },
        ...FILE_ERRORS,
        416: { description: 'The range is outside the file' },
      },
      async handler(req, res) {
        await serveFile(req, res, store, await findFile(req, 'read'), { publicRead });
      },
    },
    {
      method: 'delete',
      path: '/uploads/:filename',
      operationId: 'uploads.delete',
      summary: 'Delete a file',
      tags: ['uploads'],
      auth: 'optional',
      responses: {
        200: { description: 'Deleted', shape: { kind: 'schema', schema: { type: 'object', required: ['deleted'], properties: { deleted: { const: true } } } } },
        ...FILE_ERRORS,
      },
      async handler(req, res) {
        const doc = await findFile(req, 'delete');
        await store.remove(doc._id);
        res.json({ deleted: true });
      },
    },
  ];
}
