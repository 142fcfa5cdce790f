// Unit tests of the per-type casts: every accepted input shape and every refused one,
// plus the 400 castValue raises with the field path and expected type.
import { Types } from 'mongoose';
import { castDate } from '../../lib/schema/parse-date';
import { castValue } from '../../lib/query/cast-value';
import { castBoolean, castNumber, castObjectId, castText as castString } from '../../lib/schema/value-cast';
import { describeRejection, expectedRejection, posts, rejectionOf } from './fixtures';

const HEX = '65a1b2c3d4e5f60718293a4b';

describe('castString', () => {
  it.each([
    ['abc', 'abc'],
    ['', ''],
    [5, '5'],
    [1.5, '1.5'],
    [true, 'true'],
    [false, 'false'],
  ])('%p -> %p', (input, expected) => expect(castString(input)).toBe(expected));

  it.each([[null], [undefined], [NaN], [Infinity], [{}], [['a']], [new Date(0)]])('refuses %p', (input) =>
    expect(castString(input)).toBeUndefined(),
  );
});

describe('castNumber', () => {
  it.each([
    [5, 5],
    [-2.5, -2.5],
    ['5', 5],
    ['-5', -5],
    ['+5', 5],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['0', 0],
  ])('%p -> %p', (input, expected) => expect(castNumber(input)).toBe(expected));

  it.each([[''], [' '], ['abc'], ['5abc'], ['0x10'], ['1e999'], ['Infinity'], ['NaN'], [NaN], [Infinity], [null], [true], [[5]], [{}]])(
    'refuses %p',
    (input) => expect(castNumber(input)).toBeUndefined(),
  );
});

describe('castBoolean', () => {
  it.each([
    [true, true],
    [false, false],
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    [1, true],
    [0, false],
  ])('%p -> %p', (input, expected) => expect(castBoolean(input)).toBe(expected));

  it.each([['yes'], ['TRUE'], [''], [2], [null], [{}]])('refuses %p', (input) => expect(castBoolean(input)).toBeUndefined());
});

describe('castDate', () => {
  it.each([
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05', '2024-05-01T00:00:00.000Z'],
    ['2024', '2024-01-01T00:00:00.000Z'],
    ['2024-05-01T10:20', '2024-05-01T10:20:00.000Z'],
    ['2024-05-01T10:20:30', '2024-05-01T10:20:30.000Z'],
    ['2024-05-01T10:20:30.5Z', '2024-05-01T10:20:30.500Z'],
    ['2024-05-01T10:20:30.123456Z', '2024-05-01T10:20:30.123Z'],
    ['2024-05-01T10:20:30+02:00', '2024-05-01T08:20:30.000Z'],
    ['2024-05-01T10:20:30-0130', '2024-05-01T11:50:30.000Z'],
    // An unencoded `+` in a URL decodes to a space.
    ['2024-05-01T10:20:30 02:00', '2024-05-01T08:20:30.000Z'],
    ['2024-05-01 10:20:30Z', '2024-05-01T10:20:30.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['0050-01-01', '0050-01-01T00:00:00.000Z'],
    [1714521600000, '2024-05-01T00:00:00.000Z'],
    ['1714521600000', '2024-05-01T00:00:00.000Z'],
    [0, '1970-01-01T00:00:00.000Z'],
    [new Date('2024-05-01T00:00:00Z'), '2024-05-01T00:00:00.000Z'],
  ])('%p -> %s', (input, iso) => expect(castDate(input)?.toISOString()).toBe(iso));

  it.each([
    ['not a date'],
    [''],
    ['2024-13-01'],
    ['2024-02-30'],
    ['2023-02-29'],
    ['2024-05-00'],
    ['2024-05-01T24:00'],
    ['2024-05-01T10:60'],
    ['2024-05-01T10:20:30+25:00'],
    ['May 1, 2024'],
    ['2024/05/01'],
    [NaN],
    [Infinity],
    [1e20],
    [new Date('x')],
    [true],
    [null],
    [{}],
  ])('refuses %p', (input) => expect(castDate(input)).toBeUndefined());
});

describe('castObjectId', () => {
  it('casts a 24-hex string', () => expect(castObjectId(HEX)).toEqual(new Types.ObjectId(HEX)));
  it('casts upper-case hex', () => expect(castObjectId(HEX.toUpperCase())?.toHexString()).toBe(HEX));
  it('keeps an ObjectId', () => {
    const id = new Types.ObjectId();
    expect(castObjectId(id)).toBe(id);
  });
  it.each([[''], ['abc'], [`${HEX}0`], ['zzzzzzzzzzzzzzzzzzzzzzzz'], ['123456789012'], [12], [null], [{}]])('refuses %p', (input) =>
    expect(castObjectId(input)).toBeUndefined(),
  );
});

describe('castValue', () => {
  it('returns null when null is allowed', () => expect(castValue(posts.fields.views, null, 'where.views.eq', true)).toBeNull());

  it.each([
    ['views', 'abc', '"abc" is not a number', 'invalid_type'],
    ['views', '', '"" is not a number', 'invalid_type'],
    ['views', null, 'null is not a number', 'invalid_type'],
    ['published', 'yes', '"yes" is not a boolean', 'invalid_type'],
    ['publishedAt', 'soon', '"soon" is not a date', 'invalid_date'],
    ['author', 'nope', '"nope" is not a valid id', 'invalid_id'],
    ['id', '123', '"123" is not a valid id', 'invalid_id'],
    ['title', { a: 1 }, '{"a":1} is not a string', 'invalid_type'],
    ['tags', ['a'], '["a"] is not a string', 'invalid_type'],
  ])('%s: %p is a 400 with the code a body gets for it', (name, value, message, code) => {
    const path = `where.${name}.gt`;
    const error = rejectionOf(() => castValue(posts.fields[name], value, path));
    expect(describeRejection(error)).toEqual(expectedRejection(path, message, code));
  });

  it('shortens long values in messages', () => {
    const error = rejectionOf(() => castValue(posts.fields.views, 'x'.repeat(500), 'where.views.eq'));
    expect(error.message).toBe(`where.views.eq: "${'x'.repeat(59)}... is not a number`);
  });
});
