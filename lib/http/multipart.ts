// The one reader of multipart/form-data bodies (multer over busboy), for every route that takes files:
// POST /upload streams its file on as it arrives, custom endpoints keep theirs in memory. Its failures
// become problems in one place: every limit on how much a form holds is a 413, a form of the wrong
// shape or one that does not parse is a 400 (docs/uploads.md says why). A form some feature observes (its
// request state's formObserver, set before the form is read) is shown to it as it is read, at no cost to any other.
import type { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { ContentError, MalformedBodyError, PayloadTooLargeError, RequestAbortedError, UnsupportedMediaTypeError, ValidationError } from '../errors';
import { requestState } from '../operations/request-state';
import { isClientAbort } from './client-abort';

/** Reads a form's parts as they stream by, besides the route that reads it (a digest of the form). */
export interface FormObserver {
  /** A file of the form: returns the stream the route reads instead (the same bytes, passed on). */
  file(field: string, name: string, type: string, source: Readable): Readable;
  /** The form is read, with its text fields as the reader built them. */
  finish(fields: Record<string, unknown>): void;
}

declare module '../operations/request-state' {
  interface RequestState {
    /** What reads the request's form besides its route; set before the form is read (parse phase). */
    formObserver?: FormObserver;
    /** Where the files of the form go as they arrive, while its route's reader reads it (else: held in memory). */
    fileReceiver?: FileReceiver;
  }
}

/**
 * How much a form held: a repeat holding more (more files or text fields, a file larger than all these
 * files together, a text field longer than the longest of these) cannot be the same form.
 */
export interface FormSize {
  readonly files: number;
  readonly fileBytes: number;
  readonly fields: number;
  /** The bytes of its longest text value. */
  readonly fieldBytes: number;
}

/** What a form may hold. */
export interface FormLimits {
  /** The fields that take a file, one file each, with the largest size of each (bytes). */
  files: ReadonlyMap<string, number>;
  /** The text fields the route declares. */
  fields: number;
  /** Longest text value (bytes). */
  fieldSize: number;
}

/** One file of a form, while its bytes arrive. */
export interface FormFile {
  field: string;
  stream: Readable;
  /** The client's name for it, read as UTF-8. */
  originalName: string;
  /** The type the client declared for the part. */
  mimeType: string;
}

/** A file of a form, held in memory. */
export interface BufferedFile {
  originalName: string;
  mimeType: string;
  size: number;
  buffer: Buffer;
}

export interface MultipartForm {
  /** The text fields (a repeated name holds a list). */
  fields: Record<string, unknown>;
  /** The files by field, when they were held in memory (no receiver). */
  files: Map<string, BufferedFile>;
}

/**
 * Takes each file as its bytes arrive, resolving once it has them all. Whatever it stored is its own to
 * remove when the form then fails (the reader rejects).
 */
export type FileReceiver = (file: FormFile) => Promise<void>;

/**
 * Reads the form of `req`: with `receive`, each file goes to it as it arrives; without, files are held in
 * memory. A request with a body of another type is a 415; one without a body is an empty form.
 */
export type MultipartReader = (req: Request, res: Response, receive?: FileReceiver) => Promise<MultipartForm>;

/** Text fields read beyond the declared ones, so an unknown one is named in a 400 instead of cut off. */
const SPARE_FIELDS = 10;
/** Bytes busboy holds per file stream for a receiver that writes more slowly than the client sends. */
const FILE_BUFFER = 1024 * 1024;
/** Longest field name (busboy's default). */
const FIELD_NAME_SIZE = 100;
/** Header lines of one part (a form part has two or three). */
const HEADER_PAIRS = 50;

/** How every form is read, whatever it is read for. */
const READING = {
  // Browsers send a file name as raw UTF-8 bytes; busboy's default reads them as latin1 (`cafÃ©.png`).
  defParamCharset: 'utf8',
  ...({ fileHwm: FILE_BUFFER } as multer.Options),
} satisfies multer.Options;

/** busboy's errors for a body that is not the form it claims to be (fixed texts, no client input in them). */
const MALFORMED = /^(Multipart: Boundary not found|Malformed part header|Malformed content type|Missing Content-Type|Unexpected end of (form|file))$/;

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * multer's limit codes as problems. RFC 9110 makes 413 the answer to content larger than the server is
 * willing to process: a file, a field, or a count of parts over its limit. A file where the form takes
 * none, or no more, is the form's shape: a 400 naming the field.
 */
function fromMulter(error: multer.MulterError, limits: FormLimits): ContentError {
  const field = error.field ?? '';
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return new PayloadTooLargeError(`The file "${field}" is larger than ${limits.files.get(field) ?? Math.max(...limits.files.values())} bytes.`);
    case 'LIMIT_FIELD_VALUE':
      return new PayloadTooLargeError(`The field "${field}" is longer than ${limits.fieldSize} bytes.`);
    case 'LIMIT_FIELD_KEY':
      return new PayloadTooLargeError(`A field name is longer than ${FIELD_NAME_SIZE} bytes.`);
    case 'LIMIT_PART_COUNT':
    case 'LIMIT_FILE_COUNT':
    case 'LIMIT_FIELD_COUNT':
      return new PayloadTooLargeError('The form has more parts than this route takes.');
    case 'LIMIT_UNEXPECTED_FILE': {
      const message = limits.files.has(field) ? `${field} takes one file` : `${field} does not take a file`;
      return new ValidationError('The form is not valid.', [{ field, message, code: 'unexpected_file' }]);
    }
    default:
      return new ValidationError('The form is not valid.', [{ field: error.field, message: error.message, code: 'invalid_form' }]);
  }
}

/**
 * The problem a failed read answers with. A receiver's own failure (the database) and a client gone
 * mid-body (the error handler recognises it from the request) pass unchanged: they are not the form's.
 */
function toFormError(error: unknown, limits: FormLimits): unknown {
  if (error instanceof ContentError) return error;
  if (error instanceof multer.MulterError) return fromMulter(error, limits);
  if (error instanceof Error && MALFORMED.test(error.message)) return new MalformedBodyError(`The multipart body is malformed (${error.message.toLowerCase()}).`);
  return error;
}

function run(parse: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    // The parser's error is passed on as it came.
    const fail = (error: unknown) => {
      reject(error);
    };
    void parse(req, res, (error?: unknown) => (error ? fail(error) : resolve()));
  });
}

/** The reader of one route's forms. */
export function createMultipartReader(limits: FormLimits): MultipartReader {
  const memory = multer.memoryStorage();
  // One engine for both ways: a request with a receiver streams to it, any other is held in memory.
  const storage: multer.StorageEngine = {
    _handleFile(req, file, callback) {
      const { formObserver, fileReceiver } = requestState(req);
      const stream = formObserver ? formObserver.file(file.fieldname, file.originalname, file.mimetype, file.stream) : file.stream;
      if (!fileReceiver) {
        memory._handleFile(req, { ...file, stream }, callback);
        return;
      }
      fileReceiver({ field: file.fieldname, stream, originalName: file.originalname, mimeType: file.mimetype }).then(() => callback(null, {}), callback);
    },
    _removeFile(req, file, callback) {
      if (requestState(req).fileReceiver) callback(null);
      else memory._removeFile(req, file, callback);
    },
  };
  const parse = multer({
    storage,
    ...READING,
    // No count of files: one per file field (below) refuses any other file with a 400 naming its field.
    limits: {
      fileSize: Math.max(0, ...limits.files.values()),
      fields: limits.fields + SPARE_FIELDS,
      fieldSize: limits.fieldSize,
      fieldNameSize: FIELD_NAME_SIZE,
      parts: limits.files.size + limits.fields + SPARE_FIELDS,
      headerPairs: HEADER_PAIRS,
    },
  }).fields([...limits.files.keys()].map((name) => ({ name, maxCount: 1 })));

  return async (req, res, receive) => {
    const state = requestState(req);
    if (!req.is('multipart/form-data')) {
      if (hasBody(req)) throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data.');
      state.formObserver?.finish({});
      return { fields: {}, files: new Map() };
    }
    // A client gone before the body is read sends nothing more: multer would wait for it forever.
    if (isClientAbort(req)) throw new RequestAbortedError();
    state.fileReceiver = receive;
    try {
      await run(parse, req, res);
    } catch (error) {
      throw toFormError(error, limits);
    } finally {
      state.fileReceiver = undefined;
    }
    const files = new Map<string, BufferedFile>();
    // multer's fields; a file streamed to a receiver has no buffer.
    for (const [name, [file]] of Object.entries((req.files ?? {}) as Record<string, [Omit<Express.Multer.File, 'buffer'> & { buffer?: Buffer }]>)) {
      if (file.buffer) files.set(name, { originalName: file.originalname, mimeType: file.mimetype, size: file.size, buffer: file.buffer });
    }
    const fields = { ...(req.body as Record<string, unknown>) };
    state.formObserver?.finish(fields);
    return { fields, files };
  };
}

/**
 * Reads the form of `req` only for `observer`, keeping nothing: for a request whose form its route would
 * stream elsewhere, compared with one observed before (an Idempotency-Key's repeat). Read within `size`:
 * false as soon as it holds more (it cannot be the same form; no field longer than that form's is held, and
 * the rest of the body is discarded as it arrives); true once the observer has seen it all.
 */
export async function observeForm(req: Request, res: Response, observer: FormObserver, size: FormSize): Promise<boolean> {
  if (!req.is('multipart/form-data')) {
    if (hasBody(req)) throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data.');
    observer.finish({});
    return true;
  }
  if (isClientAbort(req)) throw new RequestAbortedError();
  const storage: multer.StorageEngine = {
    _handleFile(_req, file, callback) {
      // Read to the end, so the form goes on; the bytes are only observed.
      observer.file(file.fieldname, file.originalname, file.mimetype, file.stream).on('error', callback).on('end', () => callback(null, {})).resume();
    },
    _removeFile: (_req, _file, callback) => callback(null),
  };
  const limits = {
    files: size.files,
    fileSize: size.fileBytes,
    fields: size.fields,
    fieldSize: size.fieldBytes,
    parts: size.files + size.fields,
    fieldNameSize: FIELD_NAME_SIZE,
    headerPairs: HEADER_PAIRS,
  };
  const parse = multer({ storage, ...READING, limits }).any();
  try {
    await run(parse, req, res);
  } catch (error) {
    if (error instanceof multer.MulterError && error.code.startsWith('LIMIT_')) return false;
    throw toFormError(error, { files: new Map(), fields: size.fields, fieldSize: size.fieldBytes });
  }
  observer.finish({ ...(req.body as Record<string, unknown>) });
  return true;
}
