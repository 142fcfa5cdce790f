// File names: the one a client sent is kept for display only (path parts and control characters removed,
// cut to 255 bytes of UTF-8); the stored name, which is also the URL segment, is random, unique and made of
// safe characters only.
import { randomBytes } from 'node:crypto';

/**
 * In bytes of UTF-8, as file systems limit a name (ext4, APFS; it is within NTFS's 255 UTF-16 units too),
 * so a download saved under the name as it is fits.
 */
const MAX_ORIGINAL_NAME_BYTES = 255;
// Characters as a reader sees them (an emoji with its joiners and modifiers, a letter with its accents),
// where Node has ICU; code points otherwise.
const graphemes = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : undefined;
// C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi overrides that disguise names.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const EXTENSION = /^[a-z0-9]{1,10}$/;
/** What a stored name looks like: 32 hex digits and an optional short extension. */
export const STORED_NAME = /^[0-9a-f]{32}(\.[a-z0-9]{1,10})?$/;

/** Bytes of `text` in UTF-8. */
function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The longest start of `text` within `budget` bytes of UTF-8, cut between characters; a first character
 * longer than the budget alone (a letter under hundreds of accents) is cut between its code points.
 */
function cutToBytes(text: string, budget: number): string {
  let kept = '';
  let used = 0;
  const characters = graphemes ? Array.from(graphemes.segment(text), (part) => part.segment) : Array.from(text);
  for (const character of characters) {
    const size = utf8Length(character);
    if (used + size <= budget) {
      kept += character;
      used += size;
      continue;
    }
    if (kept !== '') break;
    for (const point of character) {
      used += utf8Length(point);
      if (used > budget) break;
      kept += point;
    }
    break;
  }
  return kept;
}

/** `name` within the byte limit: cut before its plain extension when it has one, so the extension stays. */
function limitLength(name: string): string {
  if (utf8Length(name) <= MAX_ORIGINAL_NAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot) : '';
  if (ext && EXTENSION.test(ext.slice(1).toLowerCase())) {
    return `${cutToBytes(name.slice(0, dot), MAX_ORIGINAL_NAME_BYTES - utf8Length(ext)).trimEnd()}${ext}`;
  }
  return cutToBytes(name, MAX_ORIGINAL_NAME_BYTES).trimEnd();
}

/** The client's name without directories, `..`, control characters or excess length; `file` when nothing is left. */
export function sanitizeOriginalName(name: string | undefined): string {
  const base = (name ?? '').replace(UNSAFE_CHARACTERS, '').split(/[/\\]/).pop() ?? '';
  const kept = limitLength(base.trim());
  return kept === '' || /^\.+$/.test(kept) ? 'file' : kept;
}

/** The extension to store under: the detected format's, else the original name's when it is plain. */
export function chooseExtension(originalName: string, detected: string | undefined): string | undefined {
  if (detected && EXTENSION.test(detected)) return detected;
  const dot = originalName.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const ext = originalName.slice(dot + 1).toLowerCase();
  return EXTENSION.test(ext) ? ext : undefined;
}

/** A new stored name: 128 random bits in hex, plus the extension. */
export function createStoredName(ext: string | undefined): string {
  const name = randomBytes(16).toString('hex');
  return ext ? `${name}.${ext}` : name;
}
