// Unit tests of the ObjectId helpers (no database): the text check, and ObjectId recognition that
// also holds for ObjectIds made by another copy of bson, as a host with its own mongoose produces.
import { Types } from 'mongoose';
import { castObjectId } from '../../lib/schema/value-cast';
import { decodeCursor, encodeCursor } from '../../lib/query/cursor';
import { createRecordSerializer } from '../../lib/schema/to-record';
import { OBJECT_ID_PATTERN, isObjectId, isObjectIdString } from '../../lib/util/object-id';
import { posts } from '../query/fixtures';

const HEX = '65a1b2c3d4e5f60718293a4b';

/** A second, separately evaluated bson: its ObjectId class is not the one our mongoose uses. */
function otherBson(): typeof import('bson') {
  let loaded: typeof import('bson') | undefined;
  jest.isolateModules(() => {
    loaded = require('bson') as typeof import('bson');
  });
  if (!loaded) throw new Error('bson did not load');
  return loaded;
}

describe('isObjectIdString', () => {
  it.each([[HEX], [HEX.toUpperCase()], ['0'.repeat(24)], ['aBcDeF012345678901234567']])('accepts %p', (text) =>
    expect(isObjectIdString(text)).toBe(true),
  );

  it.each([[''], [HEX.slice(1)], [`${HEX}0`], ['g'.repeat(24)], [` ${HEX.slice(1)}`], [`${HEX}\n`], ['65a1b2c3-d4e5-f607-1829-3a4b']])(
    'refuses %p',
    (text) => expect(isObjectIdString(text)).toBe(false),
  );

  it('is stateless across calls (the pattern has no global flag)', () => {
    expect(OBJECT_ID_PATTERN.flags).toBe('');
    expect([HEX, HEX, HEX].map(isObjectIdString)).toEqual([true, true, true]);
  });
});

describe('isObjectId', () => {
  it('recognises ObjectIds of our mongoose', () => {
    expect(isObjectId(new Types.ObjectId())).toBe(true);
  });

  it('recognises ObjectIds of another bson copy, which instanceof does not', () => {
    const foreign = new (otherBson().ObjectId)(HEX);
    expect(foreign instanceof Types.ObjectId).toBe(false);
    expect(isObjectId(foreign)).toBe(true);
  });

  it('recognises the ObjectID tag of bson before version 5', () => {
    const legacy = { _bsontype: 'ObjectID', toHexString: () => HEX };
    expect(isObjectId(legacy)).toBe(true);
  });

  it.each([
    ['a hex string', HEX],
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a Date', new Date(0)],
    ['a plain object', { id: HEX }],
    ['a tag without toHexString', { _bsontype: 'ObjectId' }],
    ['another bson type', new Types.Decimal128('1.5')],
    ['toHexString without the tag', { toHexString: () => HEX }],
  ])('refuses %s', (_label, value) => expect(isObjectId(value)).toBe(false));
});

describe('ObjectIds of another bson copy in the serializer, casts and cursors', () => {
  const bson = otherBson();

  it('serializes them to their hex strings, as id and as relation values', () => {
    const serialize = createRecordSerializer(posts);
    const author = '65a1b2c3d4e5f60718293a4c';
    const category = '65a1b2c3d4e5f60718293a4d';
    const record = serialize({
      _id: new bson.ObjectId(HEX),
      title: 'Hello',
      author: new bson.ObjectId(author),
      categories: [new bson.ObjectId(category)],
    });
    expect(record).toMatchObject({ id: HEX, title: 'Hello', author, categories: [category] });
    // Fields the document lacks read as null.
    expect(record.views).toBeNull();
  });

  it('passes them through castObjectId unchanged', () => {
    const foreign = new bson.ObjectId(HEX);
    expect(castObjectId(foreign)).toBe(foreign);
  });

  it('encodes them in a cursor that decodes to our ObjectId', () => {
    const sort = [{ field: 'id', path: '_id', direction: 1 as const }];
    const cursor = encodeCursor({ _id: new bson.ObjectId(HEX) }, sort, 'next', 'posts');
    const position = decodeCursor(cursor, sort, posts);
    expect(position.values[0]).toBeInstanceOf(Types.ObjectId);
    expect(String(position.values[0])).toBe(HEX);
  });
});
