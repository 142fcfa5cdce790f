// The `uploads` options: checked and resolved in one pass at start-up, with every other config problem,
// into what the feature runs on (bucket, size limit, compiled type patterns, access rules, Cache-Control).
import type { ParsedOptions } from '../config/resolve-config';
import type { AccessFn, CollectionConfig, ContentConfig, GlobalConfig, UploadOptions } from '../config/types';
import { isRecord } from '../util/is-record';

/** Largest file when `uploads.maxFileSize` is not set: 10 MiB. */
export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;
/** GridFS bucket when `uploads.bucket` is not set. */
export const DEFAULT_BUCKET = 'uploads';

const KEYS = ['bucket', 'maxFileSize', 'allowedMimeTypes', 'access', 'maxAge', 'immutable'];
/** Longest `maxAge`: one year, the most RFC 9111 caches are expected to honour. */
const MAX_AGE_LIMIT = 31_536_000;
const ACCESS_KEYS = ['create', 'read', 'delete'];
/** Becomes `<bucket>.files` and `<bucket>.chunks`: no dots, no `$`, not a system namespace. */
const BUCKET = /^[A-Za-z0-9_-]{1,64}$/;
/** `type/subtype`, `type/*` or `*\/*`; lowercase or not, parameters not allowed. */
const MIME_PATTERN = /^(\*\/\*|[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*))$/i;

export interface ResolvedUploadOptions {
  readonly bucket: string;
  readonly maxFileSize: number;
  /** Undefined: any type. */
  readonly allowed: ((mimeType: string) => boolean) | undefined;
  readonly access: { create?: AccessFn; read?: AccessFn; delete?: AccessFn };
  /** The Cache-Control of a served file. */
  readonly cacheControl: string;
}

function uploadFieldProblems(path: string, fields: unknown): string[] {
  if (!isRecord(fields)) return [];
  return Object.entries(fields)
    .filter(([, field]) => isRecord(field) && field.type === 'upload')
    .map(([name]) => `${path}.fields.${name}: an upload field needs the \`uploads\` option (the file store it points at)`);
}

/**
 * Checks and resolves `config.uploads`: every problem by path (upload fields without `uploads` are problems
 * too), and the options, undefined when uploads are off.
 */
export function parseUploadsOptions(config: ContentConfig): ParsedOptions<ResolvedUploadOptions | undefined> {
  const problems = uploadsProblems(config);
  const options = problems.length || config.uploads === undefined ? undefined : resolveUploadOptions(config.uploads);
  return { problems, options };
}

function uploadsProblems(config: ContentConfig): string[] {
  const options: unknown = config.uploads;
  if (options === undefined) {
    const collections: unknown[] = Array.isArray(config.collections) ? config.collections : [];
    const globals: unknown[] = Array.isArray(config.globals) ? config.globals : [];
    return [
      ...collections.flatMap((c, i) => uploadFieldProblems(`collections[${i}]`, (c as CollectionConfig | undefined)?.fields)),
      ...globals.flatMap((g, i) => uploadFieldProblems(`globals[${i}]`, (g as GlobalConfig | undefined)?.fields)),
    ];
  }
  if (!isRecord(options)) return ['uploads: must be an object (`{}` for the defaults)'];
  const problems: string[] = [];
  for (const key of Object.keys(options)) if (!KEYS.includes(key)) problems.push(`uploads.${key}: unknown option`);
  const { bucket, maxFileSize, allowedMimeTypes, access, maxAge, immutable } = options;
  if (maxAge !== undefined && !(typeof maxAge === 'number' && Number.isInteger(maxAge) && maxAge >= 0 && maxAge <= MAX_AGE_LIMIT)) {
    problems.push(`uploads.maxAge: must be a whole number of seconds from 0 to ${MAX_AGE_LIMIT} (one year)`);
  }
  if (immutable !== undefined && typeof immutable !== 'boolean') problems.push('uploads.immutable: must be a boolean');
  else if (immutable === true && !(typeof maxAge === 'number' && maxAge > 0)) {
    problems.push('uploads.immutable: needs uploads.maxAge (a file is immutable for as long as caches may keep it)');
  }
  if (bucket !== undefined && (typeof bucket !== 'string' || !BUCKET.test(bucket) || bucket.startsWith('system'))) {
    problems.push('uploads.bucket: must be 1-64 letters, digits, "_" or "-" (it names the <bucket>.files and <bucket>.chunks collections), not starting with "system"');
  }
  if (maxFileSize !== undefined && !(typeof maxFileSize === 'number' && Number.isSafeInteger(maxFileSize) && maxFileSize >= 1)) {
    problems.push('uploads.maxFileSize: must be a positive integer (bytes)');
  }
  if (allowedMimeTypes !== undefined) {
    if (!Array.isArray(allowedMimeTypes) || allowedMimeTypes.length === 0) {
      problems.push('uploads.allowedMimeTypes: must be a non-empty array of MIME types such as "image/png" or "image/*"');
    } else {
      allowedMimeTypes.forEach((type, i) => {
        if (typeof type !== 'string' || !MIME_PATTERN.test(type)) {
          problems.push(`uploads.allowedMimeTypes[${i}]: must be a MIME type such as "image/png", "image/*" or "*/*" (no parameters)`);
        }
      });
    }
  }
  if (access !== undefined) {
    if (!isRecord(access)) problems.push('uploads.access: must be an object of functions (create, read, delete)');
    else {
      for (const [key, rule] of Object.entries(access)) {
        if (!ACCESS_KEYS.includes(key)) problems.push(`uploads.access.${key}: unknown option (create, read, delete)`);
        else if (rule !== undefined && typeof rule !== 'function') problems.push(`uploads.access.${key}: must be a function`);
      }
    }
  }
  return problems;
}

/** A predicate for a list of exact types and `type/*` wildcards, compared case-insensitively. */
export function compileMimeMatcher(patterns: readonly string[]): (mimeType: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  let any = false;
  for (const pattern of patterns.map((p) => p.toLowerCase())) {
    if (pattern === '*/*') any = true;
    else if (pattern.endsWith('/*')) prefixes.push(pattern.slice(0, -1));
    else exact.add(pattern);
  }
  return (mimeType) => {
    const type = mimeType.toLowerCase();
    return any || exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix));
  };
}

/** Checked options with their defaults. */
export function resolveUploadOptions(options: UploadOptions): ResolvedUploadOptions {
  return Object.freeze({
    bucket: options.bucket ?? DEFAULT_BUCKET,
    maxFileSize: options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE,
    allowed: options.allowedMimeTypes ? compileMimeMatcher(options.allowedMimeTypes) : undefined,
    access: { ...options.access },
    cacheControl: fileCacheControl(options),
  });
}

/**
 * Files readable by anyone are `public`, others `private` (a shared cache must not hand one caller's file to
 * another). Without `maxAge`, `no-cache`: kept, but revalidated (a cheap 304) before every use, so a deleted
 * file or a changed read rule takes effect at once.
 */
function fileCacheControl(options: UploadOptions): string {
  const scope = options.access?.read === undefined ? 'public' : 'private';
  if (!options.maxAge) return `${scope}, no-cache`;
  return `${scope}, max-age=${options.maxAge}${options.immutable ? ', immutable' : ''}`;
}
