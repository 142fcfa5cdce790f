// The upload routes as route-table entries: POST /upload (multipart, through the router's reader), GET and HEAD
// /uploads/:filename (streamed), DELETE /uploads/:filename.
import type { Request } from 'express';
import { NotFoundError, ValidationError } from '../errors';
import { type MultipartForm, createMultipartReader } from '../http/multipart';
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

/** Longest `alt` text. */
export const MAX_ALT_LENGTH = 1000;

/** The file record, as 201 and population return it. */
export const FILE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'filename', 'originalName', 'mimeType', 'size', 'url', 'alt', 'createdAt'],
  properties: {
    id: { type: 'string', pattern: '^[0-9a-f]{24}$' },
    filename: { type: 'string', description: 'The stored, unique name; the last segment of url.' },
    originalName: { type: 'string' },
    mimeType: { type: 'string' },
    size: { type: 'integer', minimum: 0 },
    url: { type: 'string' },
    alt: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

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

  // One file, its alt text; room for any 1000 characters of alt (3 bytes of UTF-8 each, at most).
  const readForm = createMultipartReader({ files: new Map([['file', options.maxFileSize]]), fields: 1, fieldSize: 3 * MAX_ALT_LENGTH });

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
        201: { description: 'The stored file', shape: { kind: 'schema', schema: FILE_SCHEMA } },
        400: { description: 'No file, a second file or one in another field, an unknown field, an alt text too long, or a malformed body' },
        ...FILE_ERRORS,
        413: { description: 'The file is larger than uploads.maxFileSize, or the form holds more (fields, parts, bytes of a field) than this route takes' },
        415: { description: 'Not multipart, a type not allowed, or a type the content contradicts' },
      },
      async handler(req, res) {
        const who = await caller(req);
        // Checked before a byte is read: a refused caller never streams a file into the database.
        const constraint = await uploadConstraint(who, descriptor, 'create');
        let stored: StoredFileDoc | undefined;
        let form: MultipartForm;
        try {
          form = await readForm(req, res, async (file) => {
            stored = await writer.store({ source: file.stream, originalName: file.originalName, declaredType: file.mimeType, alt: undefined, uploadedBy: who.user?.id, discard: 'drain' });
          });
        } catch (error) {
          if (stored) await store.remove(stored._id);
          throw error;
        }
        if (!stored) throw new ValidationError('The upload has no file.', [{ field: 'file', message: 'a file is required in the field "file"', code: 'required' }]);
        try {
          const unknown = Object.keys(form.fields).filter((key) => key !== 'alt');
          if (unknown.length) {
            throw new ValidationError('The upload is not valid.', unknown.map((field) => ({ field, message: `unknown field "${field}"`, code: 'unknown_field' })));
          }
          const alt = checkAlt(form.fields.alt);
          if (alt !== undefined) {
            // The alt text came with the rest of the body: the file was already written.
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
