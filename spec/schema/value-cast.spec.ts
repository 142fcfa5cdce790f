// The cast table: one cast per value type, read by body validation, where/filter values, endpoint body
// schemas and the local API. Each type: what it accepts and the value stored, what it refuses and the code;
// then the field limits a write checks on top, and the agreement between a write and a filter.
import { Types } from 'mongoose';
import { QueryError } from '../../lib/errors';
import { parseFilter } from '../../lib/query/parse-filter';
import { parseWhere } from '../../lib/query/parse-where';
import { describeCollections } from '../../lib/schema/describe-collection';
import { validateInput } from '../../lib/schema/validate-input';
import { type CastType, type ValueSource, castAs, castTypeOf, checkRules } from '../../lib/schema/value-cast';

const HEX = '65a1b2c3d4e5f60718293a4b';
const iso = (text: string) => new Date(text);

type Accepted = [CastType, ValueSource, unknown, unknown];
type Refused = [CastType, ValueSource, unknown, string];

/** Accepted inputs, from a JSON body or the local API (`json`) and from URL or form text (`text`), and what is stored. */
const ACCEPTED: Accepted[] = [
  ['text', 'json', 'Ann', 'Ann'],
  ['text', 'json', '', ''],
  ['text', 'json', ' spaced ', ' spaced '],
  ['text', 'text', 'Ann', 'Ann'],
  ['text', 'text', 5, '5'],
  ['text', 'text', true, 'true'],
  ['email', 'json', ' Ann@Example.COM ', 'ann@example.com'],
  ['email', 'json', 'a@b.co', 'a@b.co'],
  ['email', 'text', ' A@B.CO ', 'a@b.co'],
  ['number', 'json', 5, 5],
  ['number', 'json', -2.5, -2.5],
  ['number', 'json', 0, 0],
  ['number', 'text', '5', 5],
  ['number', 'text', '+5', 5],
  ['number', 'text', '-1.5', -1.5],
  ['number', 'text', '.5', 0.5],
  ['number', 'text', '1e3', 1000],
  ['number', 'text', 7, 7],
  ['boolean', 'json', true, true],
  ['boolean', 'json', false, false],
  ['boolean', 'text', 'true', true],
  ['boolean', 'text', 'false', false],
  ['boolean', 'text', '1', true],
  ['boolean', 'text', '0', false],
  ['boolean', 'text', false, false],
  ['date', 'json', '2026-01-02T03:04:05.678Z', iso('2026-01-02T03:04:05.678Z')],
  ['date', 'json', '2024-05-01', iso('2024-05-01T00:00:00Z')],
  ['date', 'json', '2024-05-01T10:20:30+02:00', iso('2024-05-01T08:20:30Z')],
  ['date', 'json', 1714521600000, iso('2024-05-01T00:00:00Z')],
  ['date', 'json', iso('2024-05-01T00:00:00Z'), iso('2024-05-01T00:00:00Z')],
  ['date', 'text', '2024-05-01', iso('2024-05-01T00:00:00Z')],
  ['date', 'text', '2024', iso('2024-01-01T00:00:00Z')],
  ['date', 'text', '1714521600000', iso('2024-05-01T00:00:00Z')],
  ['date', 'text', '2024-05-01T10:20:30 02:00', iso('2024-05-01T08:20:30Z')],
  ['id', 'json', HEX, new Types.ObjectId(HEX)],
  ['id', 'json', HEX.toUpperCase(), new Types.ObjectId(HEX)],
  ['id', 'text', HEX, new Types.ObjectId(HEX)],
  ['json', 'json', { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }],
  ['json', 'json', 'text', 'text'],
];

/** Refused inputs and the code every path answers them with. */
const REFUSED: Refused[] = [
  ['text', 'json', 5, 'invalid_type'],
  ['text', 'json', true, 'invalid_type'],
  ['text', 'json', { a: 1 }, 'invalid_type'],
  ['text', 'text', { a: 1 }, 'invalid_type'],
  ['text', 'text', NaN, 'invalid_type'],
  ['text', 'text', null, 'invalid_type'],
  ['email', 'json', 'not-an-email', 'invalid_email'],
  ['email', 'json', '', 'invalid_email'],
  ['email', 'json', 'a b@c.de', 'invalid_email'],
  ['email', 'json', 'a\u0000@b.co', 'invalid_email'],
  ['email', 'json', `${'a'.repeat(250)}@b.co`, 'invalid_email'],
  ['email', 'json', 5, 'invalid_email'],
  ['email', 'text', 'A@B', 'invalid_email'],
  ['number', 'json', '5', 'invalid_type'],
  ['number', 'json', NaN, 'invalid_type'],
  ['number', 'json', Infinity, 'invalid_type'],
  ['number', 'text', 'abc', 'invalid_type'],
  ['number', 'text', '', 'invalid_type'],
  ['number', 'text', '0x10', 'invalid_type'],
  ['number', 'text', '1e999', 'invalid_type'],
  ['number', 'text', 'Infinity', 'invalid_type'],
  ['number', 'text', null, 'invalid_type'],
  ['boolean', 'json', 'true', 'invalid_type'],
  ['boolean', 'json', 1, 'invalid_type'],
  ['boolean', 'text', 'yes', 'invalid_type'],
  ['boolean', 'text', 'TRUE', 'invalid_type'],
  ['boolean', 'text', 2, 'invalid_type'],
  ['date', 'json', 'yesterday', 'invalid_date'],
  ['date', 'json', 'March 7 2020', 'invalid_date'],
  ['date', 'json', '2024-02-30', 'invalid_date'],
  ['date', 'json', '1', 'invalid_date'],
  ['date', 'json', '2024', 'invalid_date'],
  ['date', 'json', true, 'invalid_date'],
  ['date', 'json', '2024-05-01\u0000', 'invalid_date'],
  ['date', 'text', '2024-13-45', 'invalid_date'],
  ['date', 'text', '2024-02-30', 'invalid_date'],
  ['date', 'text', 'soon', 'invalid_date'],
  ['date', 'text', null, 'invalid_date'],
  ['id', 'json', 'nope', 'invalid_id'],
  ['id', 'json', `${HEX}0`, 'invalid_id'],
  ['id', 'json', 12, 'invalid_id'],
  ['id', 'text', 'bob', 'invalid_id'],
  ['json', 'json', { $where: 'x' }, 'invalid_key'],
  ['json', 'json', { a: { 'b.c': 1 } }, 'invalid_key'],
  ['json', 'json', JSON.parse('{"__proto__":{"polluted":1}}'), 'invalid_key'],
];

describe('the cast table', () => {
  it.each(ACCEPTED)('%s from %s: %p is stored as %p', (type, source, input, stored) => {
    const cast = castAs(type, input, source);
    expect(cast).toEqual({ ok: true, value: stored });
  });

  it.each(REFUSED)('%s from %s: %p is refused with %s', (type, source, input, code) => {
    const cast = castAs(type, input, source);
    expect(cast).toMatchObject({ ok: false, code });
  });

  it('text input accepts everything JSON input does, to the same value', () => {
    for (const [type, source, input, stored] of ACCEPTED) {
      if (source === 'json' && type !== 'json') expect([type, input, castAs(type, input, 'text')]).toEqual([type, input, { ok: true, value: stored }]);
    }
  });

  it('every refusal says what was expected, for both message styles', () => {
    expect(castAs('number', 'abc', 'text')).toEqual({ ok: false, code: 'invalid_type', expected: 'a number', message: 'must be a number' });
    expect(castAs('date', 'x', 'json')).toEqual({ ok: false, code: 'invalid_date', expected: 'a date', message: 'must be an ISO-8601 date' });
    expect(castAs('id', 'x', 'json')).toEqual({ ok: false, code: 'invalid_id', expected: 'a valid id', message: 'must be a record id' });
    expect(castAs('email', 'x', 'json')).toEqual({
      ok: false,
      code: 'invalid_email',
      expected: 'a valid e-mail address',
      message: 'must be a valid e-mail address',
    });
  });
});

describe('field limits (checked by writes only)', () => {
  it.each<[unknown, Parameters<typeof checkRules>[1], string | undefined]>([
    ['draft', { options: ['draft', 'published'] }, undefined],
    ['archived', { options: ['draft', 'published'] }, 'invalid_option'],
    ['a', { minLength: 2 }, 'too_short'],
    ['abc', { maxLength: 2 }, 'too_long'],
    ['ab', { minLength: 2, maxLength: 2 }, undefined],
    [-1, { min: 0 }, 'too_small'],
    [11, { max: 10 }, 'too_big'],
    [2.5, { integer: true }, 'invalid_type'],
    [2, { integer: true, min: 0, max: 5 }, undefined],
  ])('%p under %p -> %p', (value, rules, code) => {
    expect(checkRules(value, rules)?.code).toBe(code);
  });
});

const registry = describeCollections([
  {
    slug: 'people',
    fields: {
      name: { type: 'text', maxLength: 5 },
      mail: { type: 'email' },
      mails: { type: 'array', of: 'email' },
      age: { type: 'number', min: 0 },
      active: { type: 'boolean' },
      born: { type: 'date' },
      friend: { type: 'relationship', relationTo: 'people' },
      status: { type: 'select', options: ['a', 'b'] },
      meta: { type: 'json' },
    },
  },
]);
const people = registry.get('people')!;

describe('which cast a field uses', () => {
  it.each([
    ['name', 'text'],
    ['mail', 'email'],
    ['mails', 'email'],
    ['age', 'number'],
    ['active', 'boolean'],
    ['born', 'date'],
    ['friend', 'id'],
    ['id', 'id'],
    ['createdAt', 'date'],
    ['status', 'text'],
    ['meta', 'json'],
  ])('%s -> %s', (name, type) => expect(castTypeOf(people.fields[name])).toBe(type));
});

/** The value a where's `eq` on `name` is cast to, or the code it is refused with. */
function whereValue(name: string, value: unknown): { value: unknown } | { code: string } {
  try {
    const node = parseWhere({ [name]: { eq: value } }, people, registry);
    return { value: (node as { value: unknown }).value };
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    return { code: String(error.errors![0].code) };
  }
}

/** The value a body stores for `name`, or the code it is refused with. */
function bodyValue(name: string, value: unknown): { value: unknown } | { code: string } {
  const result = validateInput({ [name]: value }, people, { mode: 'update' });
  return result.errors.length ? { code: String(result.errors[0].code) } : { value: result.set[name] };
}

describe('a write and a filter agree', () => {
  it.each<[string, unknown]>([
    ['mail', ' A@B.CO '],
    ['mail', 'A@B.CO'],
    ['mail', 'not-an-email'],
    ['mail', ''],
    ['age', 5],
    ['age', 'abc'],
    ['active', true],
    ['born', '2024-05-01T10:00:00+02:00'],
    ['born', '2024-02-30'],
    ['born', 'soon'],
    ['friend', HEX],
    ['friend', 'nope'],
    ['name', 'Ann'],
  ])('%s = %p: what the body stores (or refuses), the where compares with (or refuses)', (name, value) => {
    expect(whereValue(name, value)).toEqual(bodyValue(name, value));
  });

  it('casts each item of a list of e-mails as the body does', () => {
    const node = parseWhere({ mails: { any: [' A@B.CO ', 'c@D.de'] } }, people, registry) as { value: unknown };
    expect(node.value).toEqual(validateInput({ mails: [' A@B.CO ', 'c@D.de'] }, people, { mode: 'update' }).set.mails);
  });

  it('a Form C filter casts as the where does', () => {
    const node = parseFilter('mail: A@B.CO ', people, registry) as { value: unknown };
    expect(node.value).toBe('a@b.co');
    expect(() => parseFilter('born:>2024-02-30', people, registry)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ code: 'invalid_date' })] }),
    );
  });

  it('leaves field limits to writes: a filter may ask for values a write would refuse to store', () => {
    expect(bodyValue('age', -1)).toEqual({ code: 'too_small' });
    expect(whereValue('age', -1)).toEqual({ value: -1 });
    expect(bodyValue('status', 'c')).toEqual({ code: 'invalid_option' });
    expect(whereValue('status', 'c')).toEqual({ value: 'c' });
    expect(whereValue('name', 'toolong')).toEqual({ value: 'toolong' });
  });

  it('trims and lower-cases a range bound on an e-mail field, which need not be an address', () => {
    const node = parseWhere({ mail: { gte: ' M', lt: 'N' } }, people, registry) as { kind: string; nodes: Array<{ value: unknown }> };
    expect(node.nodes.map((leaf) => leaf.value)).toEqual(['m', 'n']);
    expect(() => parseWhere({ mail: { gt: 5 } }, people, registry)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ code: 'invalid_email' })] }),
    );
  });

  it('matches text patterns (like, contains) as typed: a fragment of an address is not an address', () => {
    const like = parseWhere({ mail: { like: '@Example.com' } }, people, registry) as { value: RegExp };
    expect(like.value.test('ann@example.com')).toBe(true);
    const contains = parseWhere({ mail: { contains: 'ANN' } }, people, registry) as { value: RegExp };
    expect(contains.value.test('ann@example.com')).toBe(true);
  });
});
