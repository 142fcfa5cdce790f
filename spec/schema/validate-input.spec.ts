// Body validation: strict JSON types, every error at once with its field, no hidden or system writes.
import { Types } from 'mongoose';
import { describeCollection } from '../../lib/schema/describe-collection';
import { validateInput } from '../../lib/schema/validate-input';

const posts = describeCollection({
  slug: 'posts',
  softDelete: true,
  fields: {
    title: { type: 'text', required: true, maxLength: 20 },
    views: { type: 'number', min: 0 },
    published: { type: 'boolean' },
    publishedAt: { type: 'date' },
    status: { type: 'select', options: ['draft', 'published'] },
    labels: { type: 'select', options: ['a', 'b'], hasMany: true },
    tags: { type: 'array', of: 'text' },
    author: { type: 'relationship', relationTo: 'authors' },
    contact: { type: 'email' },
    meta: { type: 'json' },
    secret: { type: 'text', hidden: true },
    slug: { type: 'text', required: true, default: 'untitled' },
  },
});

describe('validateInput', () => {
  it('casts a valid create body for storage', () => {
    const id = new Types.ObjectId().toHexString();
    const result = validateInput(
      { title: 'Hi', views: 3, published: true, publishedAt: '2026-01-02T03:04:05.678Z', status: 'draft', labels: ['a'], tags: ['x'], author: id, contact: ' Ann@Example.COM ', meta: { a: [1, { b: 2 }] } },
      posts,
      { mode: 'create' },
    );
    expect(result.errors).toEqual([]);
    expect(result.set.publishedAt).toEqual(new Date('2026-01-02T03:04:05.678Z'));
    expect(result.set.author).toBeInstanceOf(Types.ObjectId);
    expect(String(result.set.author)).toBe(id);
    expect(result.set.contact).toBe('ann@example.com');
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['number as string', { title: 'x', views: '5' }, 'views', 'invalid_type'],
    ['NaN-like number', { title: 'x', views: 'abc' }, 'views', 'invalid_type'],
    ['below min', { title: 'x', views: -1 }, 'views', 'too_small'],
    ['string as number', { title: 5 }, 'title', 'invalid_type'],
    ['too long', { title: 'x'.repeat(21) }, 'title', 'too_long'],
    ['boolean as string', { title: 'x', published: 'true' }, 'published', 'invalid_type'],
    ['bad date', { title: 'x', publishedAt: 'yesterday' }, 'publishedAt', 'invalid_date'],
    ['a date in words (Date() would read it)', { title: 'x', publishedAt: 'March 7 2020' }, 'publishedAt', 'invalid_date'],
    ['a day that does not exist (Date() would roll it over)', { title: 'x', publishedAt: '2024-02-30' }, 'publishedAt', 'invalid_date'],
    ['a digit string (Date() would read a year)', { title: 'x', publishedAt: '1' }, 'publishedAt', 'invalid_date'],
    ['a boolean', { title: 'x', publishedAt: true }, 'publishedAt', 'invalid_date'],
    ['date with a trailing NUL (Date() would skip it)', { title: 'x', publishedAt: '2024-05-01\u0000' }, 'publishedAt', 'invalid_date'],
    ['date with a control character', { title: 'x', publishedAt: '2024-05-01T10:00\u001fZ' }, 'publishedAt', 'invalid_date'],
    ['option not allowed', { title: 'x', status: 'archived' }, 'status', 'invalid_option'],
    ['hasMany option not allowed', { title: 'x', labels: ['a', 'z'] }, 'labels', 'invalid_option'],
    ['array expected', { title: 'x', tags: 'one' }, 'tags', 'invalid_type'],
    ['bad relation id', { title: 'x', author: 'nope' }, 'author', 'invalid_id'],
    ['bad email', { title: 'x', contact: 'not-an-email' }, 'contact', 'invalid_email'],
    ['$ key in json', { title: 'x', meta: { $where: 'x' } }, 'meta', 'invalid_key'],
    ['nested prototype key in json', { title: 'x', meta: JSON.parse('{"a":{"__proto__":{"polluted":1}}}') }, 'meta', 'invalid_key'],
    ['unknown field', { title: 'x', nope: 1 }, 'nope', 'unknown_field'],
    ['prototype key', JSON.parse('{"title":"x","__proto__":{"polluted":true}}'), '__proto__', 'unknown_field'],
    ['constructor key', { title: 'x', constructor: { prototype: {} } }, 'constructor', 'unknown_field'],
    ['hidden field', { title: 'x', secret: 's' }, 'secret', 'unknown_field'],
    ['system field', { title: 'x', createdAt: '2020-01-01' }, 'createdAt', 'read_only'],
    ['id', { title: 'x', id: 'abc' }, 'id', 'read_only'],
    ['missing required', {}, 'title', 'required'],
    ['null required', { title: null }, 'title', 'required'],
    ['empty required', { title: '' }, 'title', 'required'],
  ])('rejects %s', (_name, body, field, code) => {
    const result = validateInput(body, posts, { mode: 'create' });
    expect(result.errors).toContainEqual(expect.objectContaining({ field, code }));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ['a top-level key', { 'a\u0000b': 1 }],
    ['a nested key', { a: { '\u0000': 1 } }],
    ['a key inside an array', { list: [{ x: 1 }, { 'y\u0000': 2 }] }],
  ])('rejects a NUL in %s of a json value (MongoDB cannot store it), naming the key escaped', (_name, meta) => {
    const result = validateInput({ title: 'x', meta }, posts, { mode: 'create' });
    expect(result.errors).toEqual([{ field: 'meta', message: expect.stringContaining('\\u0000'), code: 'invalid_key' }]);
    expect(result.errors[0].message).not.toContain('\u0000');
    expect(result.errors[0].message).toMatch(/NUL/);
  });

  it('keeps other control characters in json keys and every control character in text values', () => {
    const text = `a${Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).join('')}\u007fz`;
    const result = validateInput({ title: 'x', tags: [text], meta: { 'tab\there': text, line: 'a\u0000b' }, status: 'draft' }, posts, { mode: 'create' });
    expect(result.errors).toEqual([]);
    expect(result.set.meta).toEqual({ 'tab\there': text, line: 'a\u0000b' });
    expect(validateInput({ title: text.slice(0, 20) }, posts, { mode: 'create' }).set.title).toBe(text.slice(0, 20));
  });

  it.each(['\u0000', '\u0001', '\u001f', '\u007f'])('rejects an e-mail address with the control character %j', (character) => {
    expect(validateInput({ title: 'x', contact: `a${character}b@example.com` }, posts, { mode: 'create' }).errors).toEqual([
      { field: 'contact', message: 'contact must be a valid e-mail address', code: 'invalid_email' },
    ]);
  });

  it('bounds e-mail addresses at 254 characters (RFC 5321)', () => {
    const at = (length: number) => `${'a'.repeat(length - '@example.com'.length)}@example.com`;
    expect(validateInput({ title: 'x', contact: at(254) }, posts, { mode: 'create' }).errors).toEqual([]);
    expect(validateInput({ title: 'x', contact: at(255) }, posts, { mode: 'create' }).errors).toEqual([
      { field: 'contact', message: 'contact must be a valid e-mail address', code: 'invalid_email' },
    ]);
  });

  it('accepts ISO-8601 dates of days that exist and epoch milliseconds, as the query does', () => {
    for (const [input, iso] of [
      ['2024-02-29', '2024-02-29T00:00:00.000Z'],
      ['2024-02-29T10:00:00+02:00', '2024-02-29T08:00:00.000Z'],
      ['2024-05-01T10:00:00.123Z', '2024-05-01T10:00:00.123Z'],
      [0, '1970-01-01T00:00:00.000Z'],
    ] as const) {
      const result = validateInput({ title: 'x', publishedAt: input }, posts, { mode: 'create' });
      expect(result.errors).toEqual([]);
      expect((result.set.publishedAt as Date).toISOString()).toBe(iso);
    }
  });

  it('reports every problem at once', () => {
    const result = validateInput({ views: 'x', status: 'zzz', nope: true }, posts, { mode: 'create' });
    expect(result.errors.map((e) => e.field).sort()).toEqual(['nope', 'status', 'title', 'views']);
  });

  it('does not require fields with a default', () => {
    expect(validateInput({ title: 'x' }, posts, { mode: 'create' }).errors).toEqual([]);
  });

  it('treats update as partial and null as "clear"', () => {
    const result = validateInput({ views: null, status: 'published' }, posts, { mode: 'update' });
    expect(result.errors).toEqual([]);
    expect(result.unset).toEqual(['views']);
    expect(result.set).toEqual({ status: 'published' });
  });

  it('refuses to clear a required field on update', () => {
    expect(validateInput({ title: null }, posts, { mode: 'update' }).errors).toEqual([
      { field: 'title', message: 'title is required', code: 'required' },
    ]);
  });

  it('lets trusted callers write hidden fields and blocks read-only ones', () => {
    expect(validateInput({ title: 'x', secret: 's' }, posts, { mode: 'create', allowHidden: true }).set.secret).toBe('s');
    const result = validateInput({ status: 'draft' }, posts, { mode: 'update', readOnly: new Set(['status']) });
    expect(result.errors).toEqual([{ field: 'status', message: 'you may not change status', code: 'forbidden_field' }]);
  });

  it.each([[null], [[1, 2]], ['text'], [42]])('rejects a non-object body %p', (body) => {
    expect(validateInput(body, posts, { mode: 'create' }).errors[0].code).toBe('invalid_body');
  });
});
