// File names: the one a client sent is kept for display only (path parts and control characters removed);
// the stored name, which is also the URL segment, is random, unique and made of safe characters only.
import { randomBytes } from 'node:crypto';

const MAX_ORIGINAL_NAME = 255;
// C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi overrides that disguise names.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const EXTENSION = /^[a-z0-9]{1,10}$/;
/** What a stored name looks like: 32 hex digits and an optional short extension. */
export const STORED_NAME = /^[0-9a-f]{32}(\.[a-z0-9]{1,10})?$/;

/** The client's name without directories, `..`, control characters or excess length; `file` when nothing is left. */
export function sanitizeOriginalName(name: string | undefined): string {
  const base = (name ?? '').replace(UNSAFE_CHARACTERS, '').split(/[/\\]/).pop() ?? '';
  const trimmed = base.trim().slice(0, MAX_ORIGINAL_NAME);
  return trimmed === '' || /^\.+$/.test(trimmed) ? 'file' : trimmed;
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
