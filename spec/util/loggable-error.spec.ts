// Errors handed to the logger: client text quoted in a message (driver and server errors do quote it)
// must not put raw control characters, forged lines included, into the server log.
import { escapeControlCharacters, toLoggableError } from '../../lib/util/loggable-error';

const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

describe('escapeControlCharacters', () => {
  it('writes every control character as \\uXXXX and leaves other text alone', () => {
    const controls = [...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)), '\u007f', '\u0085', '\u2028'];
    const escaped = escapeControlCharacters(`a${controls.join('')}é✓`);
    expect(escaped).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028]/);
    expect(escaped).toBe(`a${controls.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}é✓`);
  });
});

describe('toLoggableError', () => {
  it('escapes the message, keeps the name and the stack frames, one line per frame', () => {
    const error = new TypeError('value x\u0000y\n[error] forged line must not contain null bytes');
    const safe = toLoggableError(error);
    expect(safe).toBeInstanceOf(Error);
    expect(safe.name).toBe('TypeError');
    expect(safe.message).toBe('value x\\u0000y\\u000a[error] forged line must not contain null bytes');
    const lines = (safe.stack ?? '').split('\n');
    expect(lines[0]).toBe(`TypeError: ${safe.message}`);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(1).every((line) => /^\s+at /.test(line))).toBe(true);
    expect(safe.stack).not.toMatch(RAW_CONTROL);
  });

  it('copies the cause chain and a string code, escaped', () => {
    const cause = Object.assign(new Error('inner \u001b[31mred'), { code: 'E\u0000' });
    const safe = toLoggableError(new Error('outer', { cause }));
    const copied = safe.cause as Error & { code?: string };
    expect(copied.message).toBe('inner \\u001b[31mred');
    expect(copied.code).toBe('E\\u0000');
  });

  it('describes a thrown non-Error', () => {
    expect(toLoggableError('bad\u0000').message).toBe('non-error thrown: bad\\u0000');
    expect(toLoggableError({ a: '\n' }).message).toBe('non-error thrown: {"a":"\\n"}');
  });
});
