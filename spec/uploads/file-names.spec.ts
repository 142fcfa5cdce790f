// The display name kept from the client's file name: at most 255 bytes of UTF-8, cut between characters as
// a reader sees them (never inside an emoji or an accented letter), its plain extension kept.
import { sanitizeOriginalName } from '../../lib/uploads/file-names';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** True when `text` has no lone surrogate: what a cut through the middle of an emoji leaves. */
const wellFormed = (text: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

describe('sanitizeOriginalName: the length kept', () => {
  it('keeps a name of 255 bytes or fewer as it is', () => {
    const name = `${'é'.repeat(125)}.png`;
    expect(bytes(name)).toBe(254);
    expect(sanitizeOriginalName(name)).toBe(name);
  });

  it('cuts a longer name to at most 255 bytes of UTF-8, not 255 UTF-16 units', () => {
    const kept = sanitizeOriginalName('é'.repeat(200));
    expect(kept).toBe('é'.repeat(127));
    expect(bytes(kept)).toBe(254);
  });

  it.each([
    ['an emoji (a surrogate pair)', '😀'],
    ['a family emoji (code points joined by ZWJ)', '👩‍👩‍👧'],
    ['a flag (two regional indicators)', '🇫🇷'],
    ['a letter and its combining accent', 'e\u0301'],
  ])('never cuts %s in half', (_name, character) => {
    for (let pad = 0; pad < 20; pad++) {
      const kept = sanitizeOriginalName(`${'a'.repeat(240 + pad)}${character.repeat(10)}`);
      expect(wellFormed(kept)).toBe(true);
      expect(bytes(kept)).toBeLessThanOrEqual(255);
      const tail = kept.replace(/^a+/, '');
      expect(tail).toBe(character.repeat(tail.length / character.length));
    }
  });

  it('cuts between code points inside a single character longer than the limit', () => {
    const kept = sanitizeOriginalName(`a${'\u0301'.repeat(200)}`);
    expect(wellFormed(kept)).toBe(true);
    expect(bytes(kept)).toBe(255);
  });

  it('keeps a plain extension when it cuts, the cut taken from the name before it', () => {
    const kept = sanitizeOriginalName(`${'😀'.repeat(100)}.PNG`);
    expect(kept).toBe(`${'😀'.repeat(62)}.PNG`);
    expect(sanitizeOriginalName(`${'x'.repeat(300)}.tar.gz`)).toBe(`${'x'.repeat(252)}.gz`);
  });

  it('cuts the whole name when what follows its last dot is no plain extension', () => {
    const kept = sanitizeOriginalName(`report.${'x'.repeat(300)}`);
    expect(kept).toBe(`report.${'x'.repeat(248)}`);
  });

  it('leaves no space at the end of a cut name', () => {
    expect(sanitizeOriginalName(`${'a'.repeat(250)}      ${'b'.repeat(20)}`)).toBe('a'.repeat(250));
    expect(sanitizeOriginalName(`${'a'.repeat(250)}      ${'b'.repeat(20)}.txt`)).toBe(`${'a'.repeat(250)}.txt`);
  });
});
