// What the router hands its logger for an error: control characters in the message (which may quote
// client text, as driver and server errors do) escaped, so a request can neither forge log lines nor hide in them.

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators: everything a terminal or a
// line-based log reader could act on.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** How deep a `cause` chain is followed. */
const MAX_CAUSES = 3;

/** `text` with every control character written as `\uXXXX` (a backslash included, so nothing is lost). */
export function escapeControlCharacters(text: string): string {
  return text.replace(UNSAFE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- JSON.stringify answers undefined for a function or a symbol, which its typings omit
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/**
 * A copy of `error` safe to log: an Error of the same name whose message is escaped, whose stack is the
 * escaped first line plus the original `at` frames (code locations, not client text), and whose cause
 * chain is copied the same way. A thrown non-Error becomes an Error describing it.
 */
export function toLoggableError(error: unknown, causes = MAX_CAUSES): Error {
  if (!(error instanceof Error)) return new Error(`non-error thrown: ${escapeControlCharacters(describeThrown(error))}`);
  const name = escapeControlCharacters(error.name);
  const message = escapeControlCharacters(error.message);
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)).map(escapeControlCharacters);
  const options = error.cause !== undefined && causes > 0 ? { cause: toLoggableError(error.cause, causes - 1) } : undefined;
  const copy = new Error(message, options);
  copy.name = name;
  copy.stack = [`${name}: ${message}`, ...frames].join('\n');
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code: typeof code === 'string' ? escapeControlCharacters(code) : code });
  return copy;
}

/**
 * `Name: message` of an error, escaped, on one line and without a stack: for failures an outage repeats
 * (every request, every stream), where a stack says nothing the first line does not.
 */
export function describeError(error: unknown): string {
  // By shape, not instanceof: the driver's errors may come from another realm or copy of its classes.
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown };
  if (typeof message !== 'string') return 'unknown error';
  return escapeControlCharacters(`${typeof name === 'string' ? name : 'Error'}: ${message}`);
}
