// Regexes built from client text with control characters in it: they must still serialize to BSON
// (a regex pattern is a C string, so a raw NUL cannot be sent) and match exactly the text written.
import { mongo } from 'mongoose';
import { toLikeRegExp, toSubstringRegExp } from '../../lib/query/text-match';

const CONTROLS = [...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)), '\u007f'];
const label = (character: string) => `U+${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

describe('text matching with control characters', () => {
  it.each(CONTROLS.map((character) => [label(character), character]))('%s: substring and LIKE regexes serialize and match literally', (_, character) => {
    const value = `Ab${character}Cd`;
    for (const regex of [toSubstringRegExp(`b${character}c`), toLikeRegExp(`a%${character}c_`), toLikeRegExp(`%b${character}%`)]) {
      expect(regex.source).not.toMatch(/[\u0000-\u001f\u007f]/);
      expect(() => mongo.BSON.serialize({ title: regex })).not.toThrow();
      expect(regex.test(value)).toBe(true);
      expect(regex.test('AbCd')).toBe(false);
    }
  });

  it('writes NUL as \\x00 and keeps other text as it was', () => {
    expect(toSubstringRegExp('a\u0000b').source).toBe('a\\x00b');
    expect(toSubstringRegExp('a.b').source).toBe('a\\.b');
    expect(toLikeRegExp('x\u001f_').source).toBe('^x\\x1f[\\s\\S]$');
  });
});
