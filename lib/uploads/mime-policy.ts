// Which type a file is stored (and later served) as: the type its first bytes show, checked against the
// type the client declared, so a file cannot lie about itself. The rules are written out in docs/uploads.md.
import { mimeTypes } from 'file-type';
import { UnsupportedMediaTypeError } from '../errors';
import { sniffFormat } from './sniff-format';

/** Bytes file-type needs to recognise every format it knows. */
export const SNIFF_BYTES = 4100;

const GENERIC = 'application/octet-stream';
const MIME_TOKEN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** Common names clients send for a type file-type reports under another. */
const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'image/vnd.microsoft.icon': 'image/x-icon',
  'audio/mp3': 'audio/mpeg',
  'audio/wav': 'audio/vnd.wave',
  'audio/x-wav': 'audio/vnd.wave',
  'audio/wave': 'audio/vnd.wave',
  'application/x-zip-compressed': 'application/zip',
  'application/x-gzip': 'application/gzip',
  'application/x-pdf': 'application/pdf',
};

/**
 * Formats that carry other formats: a zip may be an .apk, an OLE file a .doc, an XML file an SVG. The
 * declared type refines them when it is not a format the bytes would have shown by themselves.
 */
const CONTAINERS = new Set(['application/zip', 'application/x-cfb', 'application/xml', 'application/gzip']);

/** Types a browser would run or render as a document: always served as a sandboxed attachment. */
export function isActiveType(mimeType: string): boolean {
  const type = mimeType.toLowerCase();
  return (
    type === 'text/html' ||
    type === 'application/xhtml+xml' ||
    type === 'image/svg+xml' ||
    type === 'text/xml' ||
    type === 'application/xml' ||
    type === 'text/xsl' ||
    type.endsWith('+xml') ||
    type.includes('javascript') ||
    type.includes('ecmascript')
  );
}

function isTextual(type: string): boolean {
  return type.startsWith('text/') || type === 'application/json' || type.endsWith('+json') || isActiveType(type);
}

/** The types file-type detects, lowercased as declared types are (it reports `video/MP1S`). */
const DETECTABLE: ReadonlySet<string> = new Set([...mimeTypes].map((type) => type.toLowerCase()));

/** A format with magic bytes that file-type reliably finds: when it finds nothing, the declaration is false. */
function hasSignature(type: string): boolean {
  return DETECTABLE.has(type) && !isTextual(type) && !CONTAINERS.has(type);
}

/** A UTF-16 byte-order mark (which file-type would take for an MPEG frame header). */
function startsWithUtf16Bom(head: Uint8Array): boolean {
  return head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff));
}

/** Text has no NUL bytes, unless it is UTF-16. */
function looksBinary(head: Uint8Array): boolean {
  return !startsWithUtf16Bom(head) && head.includes(0);
}

/** The declared type, lowercased and without parameters; anything unparseable counts as undeclared. */
export function normalizeMimeType(declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0].trim().toLowerCase();
  return MIME_TOKEN.test(type) ? type : GENERIC;
}

export interface DetectedType {
  mimeType: string;
  /** The extension the format is known by, when the bytes named it. */
  ext?: string;
}

const lying = (declared: string, detected: string) =>
  new UnsupportedMediaTypeError(`The file is declared as ${declared} but its content is ${detected}.`);

/**
 * Decides the stored type from the first bytes (up to SNIFF_BYTES) and the declared type; throws
 * UnsupportedMediaTypeError (415) when the two contradict each other, or when the bytes begin a format
 * they do not complete (a file cut short or corrupt, whatever it was declared as: its type is unknowable).
 */
export async function detectMimeType(head: Uint8Array, declaredRaw: string | undefined): Promise<DetectedType> {
  const declared = normalizeMimeType(declaredRaw);
  const utf16Text = isTextual(declared) && startsWithUtf16Bom(head);
  const sniffed = head.length && !utf16Text ? await sniffFormat(head) : { kind: 'unknown' as const };
  if (sniffed.kind === 'broken') {
    throw new UnsupportedMediaTypeError('The file is cut short or corrupt: its first bytes begin a known format that the bytes after them do not complete.');
  }
  if (sniffed.kind === 'format') {
    const detected = sniffed.mimeType;
    const claimed = ALIASES[declared] ?? declared;
    // busboy reports text/plain for a part that declares nothing, so text/plain over a binary format is "undeclared" too.
    if (claimed === GENERIC || claimed === detected || (declared === 'text/plain' && !isTextual(detected))) {
      return { mimeType: detected, ext: sniffed.ext };
    }
    if (CONTAINERS.has(detected) && !hasSignature(claimed)) return { mimeType: declared };
    throw lying(declared, detected);
  }
  if (hasSignature(ALIASES[declared] ?? declared)) {
    throw new UnsupportedMediaTypeError(`The file is declared as ${declared} but its content is not.`);
  }
  if (isTextual(declared) && looksBinary(head)) {
    throw new UnsupportedMediaTypeError(`The file is declared as ${declared} but its content is binary.`);
  }
  return { mimeType: declared };
}
