// Reads the multipart/form-data body of an endpoint whose schema has file properties: held in memory,
// bounded by each file's maxSize and by the number of parts, with every multer failure mapped to a 4xx.
import type { RequestHandler } from 'express';
import multer from 'multer';
import type { EndpointBodySchema } from '../config/types';
import { ContentError, MalformedBodyError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors';
import { DEFAULT_MAX_FILE_SIZE } from './body-schema';
import { toEndpointFile } from './validate-body';

/** Largest text field of a form (files have their own limits). */
const MAX_FIELD_SIZE = 1024 * 1024;
/** Text fields beyond the declared ones still read, so an unknown one is named in the 400 instead of cut off. */
const SPARE_FIELDS = 10;

function hasBody(headers: Record<string, unknown>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Multer's errors (and busboy's, for a form that does not parse) as the router's problems. */
function toContentError(error: unknown, limits: ReadonlyMap<string, number>): ContentError {
  if (!(error instanceof multer.MulterError)) return new MalformedBodyError('The multipart body could not be read.');
  const field = error.field;
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return new PayloadTooLargeError(`The file "${field}" is larger than ${limits.get(field ?? '') ?? DEFAULT_MAX_FILE_SIZE} bytes.`);
    case 'LIMIT_FIELD_VALUE':
      return new PayloadTooLargeError(`The field "${field}" is longer than ${MAX_FIELD_SIZE} bytes.`);
    case 'LIMIT_PART_COUNT':
    case 'LIMIT_FILE_COUNT':
    case 'LIMIT_FIELD_COUNT':
      return new PayloadTooLargeError('The form has more parts than this endpoint takes.');
    case 'LIMIT_UNEXPECTED_FILE':
      return new ValidationError('The body is not valid.', [{ field, message: `${field} does not take a file`, code: 'unexpected_file' }]);
    default:
      return new ValidationError('The form is not valid.', [{ field, message: error.message, code: 'invalid_form' }]);
  }
}

/**
 * The body reader of one endpoint: sets `req.body` to the text fields plus each file as an EndpointFile.
 * A request with a body of another type is a 415; one with no body gets `{}`.
 */
export function createMultipartReader(schema: EndpointBodySchema): RequestHandler {
  const properties = Object.entries(schema.properties);
  const fileLimits = new Map(properties.flatMap(([name, p]) => (p.type === 'file' ? [[name, p.maxSize ?? DEFAULT_MAX_FILE_SIZE] as const] : [])));
  const textFields = properties.length - fileLimits.size;
  const upload = multer({
    storage: multer.memoryStorage(),
    // Browsers send a file name as raw UTF-8 bytes; busboy's default reads them as latin1 (`cafÃ©.png`).
    defParamCharset: 'utf8',
    limits: {
      // The largest file any property takes; each property's own limit is checked on the parsed file.
      fileSize: Math.max(...fileLimits.values()),
      files: fileLimits.size,
      fields: textFields + SPARE_FIELDS,
      fieldSize: MAX_FIELD_SIZE,
      parts: fileLimits.size + textFields + SPARE_FIELDS,
    },
  }).fields([...fileLimits.keys()].map((name) => ({ name, maxCount: 1 })));

  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      if (hasBody(req.headers)) return next(new UnsupportedMediaTypeError('Content-Type must be multipart/form-data.'));
      req.body = {};
      return next();
    }
    upload(req, res, (error?: unknown) => {
      if (error) return next(toContentError(error, fileLimits));
      const body: Record<string, unknown> = { ...(req.body as Record<string, unknown> | undefined) };
      const files = (req.files ?? {}) as Record<string, Express.Multer.File[]>;
      for (const [name, list] of Object.entries(files)) body[name] = toEndpointFile(list[0]);
      req.body = body;
      next();
    });
  };
}
