// normalizeChange: stream documents from real MongoDB and from servers with quirks become the bus's
// ChangeEvent (origin stream), with the id read from the full document first.
import type { mongo } from 'mongoose';
import { Types } from 'mongoose';
import { normalizeChange, type WatchTarget } from '../../lib/changes/normalize-change';

const posts: WatchTarget = { scope: 'collection', slugs: ['posts'], collectionName: 'posts' };
const globals: WatchTarget = { scope: 'global', slugs: ['site', 'footer'], collectionName: 'globals' };
const doc = (value: Record<string, unknown>) => value as unknown as mongo.ChangeStreamDocument;

describe('normalizeChange', () => {
  const id = new Types.ObjectId();
  const token = { _data: 'abc' };

  it('maps an insert to a create with the full document, token and time', () => {
    const wallTime = new Date('2026-01-02T03:04:05Z');
    expect(normalizeChange(doc({ _id: token, operationType: 'insert', fullDocument: { _id: id, title: 'x' }, documentKey: { _id: id }, wallTime }), posts)).toEqual({
      kind: 'change',
      event: { scope: 'collection', slug: 'posts', type: 'create', ids: [id.toHexString()], origin: 'stream', docs: [{ _id: id, title: 'x' }], resumeToken: token, timestamp: wallTime },
    });
  });

  it('reads an update’s id from the full document when the documentKey is not { _id }', () => {
    const result = normalizeChange(doc({ _id: token, operationType: 'update', fullDocument: { _id: id, b: 2 }, documentKey: { $set: { b: 2 } } }), posts);
    expect(result).toMatchObject({ kind: 'change', event: { type: 'update', ids: [id.toHexString()], docs: [{ _id: id, b: 2 }] } });
  });

  it('names the changed fields of an update, and maps replace to update', () => {
    const result = normalizeChange(
      doc({ _id: token, operationType: 'update', documentKey: { _id: id }, fullDocument: null, updateDescription: { updatedFields: { 'a.b': 1, c: 2 }, removedFields: ['d'] } }),
      posts,
    );
    expect(result).toMatchObject({ kind: 'change', event: { type: 'update', ids: [id.toHexString()], fields: ['a', 'c', 'd'] } });
    expect(result.kind === 'change' && result.event.docs).toBeUndefined();
    expect(normalizeChange(doc({ _id: token, operationType: 'replace', documentKey: { _id: id }, fullDocument: { _id: id } }), posts)).toMatchObject({ event: { type: 'update' } });
  });

  it('carries the updatedAt and deletedAt an update set, from its description (the looked-up document may be later)', () => {
    const stamped = (updateDescription: Record<string, unknown>) => {
      const result = normalizeChange(doc({ _id: token, operationType: 'update', documentKey: { _id: id }, fullDocument: { _id: id, updatedAt: new Date(9) }, updateDescription }), posts);
      return result.kind === 'change' ? result.event.stamps : 'not a change';
    };
    expect(stamped({ updatedFields: { title: 't', updatedAt: new Date(2), deletedAt: new Date(2) }, removedFields: [] })).toEqual({ updatedAt: new Date(2), deletedAt: new Date(2) });
    expect(stamped({ updatedFields: { deletedAt: null, updatedAt: new Date(3) } })).toEqual({ updatedAt: new Date(3), deletedAt: null });
    expect(stamped({ updatedFields: {}, removedFields: ['deletedAt'] })).toEqual({ deletedAt: null });
    // An update that left both alone says so: no stamps at all, unlike an event that describes nothing.
    expect(stamped({ updatedFields: { title: 't' } })).toEqual({});
    const replaced = normalizeChange(doc({ _id: token, operationType: 'replace', documentKey: { _id: id }, fullDocument: { _id: id, updatedAt: new Date(9) } }), posts);
    expect(replaced.kind === 'change' && 'stamps' in replaced.event).toBe(false);
  });

  it('carries an update\'s or a replace\'s pre-image as `before`, when the stream has one', () => {
    const before = { _id: id, status: 'published' };
    for (const operationType of ['update', 'replace']) {
      const result = normalizeChange(doc({ _id: token, operationType, documentKey: { _id: id }, fullDocument: { _id: id, status: 'draft' }, fullDocumentBeforeChange: before }), posts);
      expect(result).toMatchObject({ kind: 'change', event: { type: 'update', before: [before] } });
    }
    const without = normalizeChange(doc({ _id: token, operationType: 'update', documentKey: { _id: id }, fullDocument: { _id: id }, fullDocumentBeforeChange: null }), posts);
    expect(without.kind === 'change' && 'before' in without.event).toBe(false);
  });

  it('keeps ids empty and leaves out a partial document when no id can be told', () => {
    const result = normalizeChange(doc({ _id: token, operationType: 'update', documentKey: { $set: { a: 2 } }, fullDocument: { a: 2 } }), posts);
    expect(result).toMatchObject({ kind: 'change', event: { type: 'update', ids: [] } });
    expect(result.kind === 'change' && result.event.docs).toBeUndefined();
  });

  it('maps a delete without documents', () => {
    expect(normalizeChange(doc({ _id: token, operationType: 'delete', documentKey: { _id: id } }), posts)).toMatchObject({
      kind: 'change',
      event: { type: 'delete', ids: [id.toHexString()] },
    });
  });

  it('reports globals by slug and ignores documents of unconfigured globals', () => {
    expect(normalizeChange(doc({ _id: token, operationType: 'update', documentKey: { _id: 'site' }, fullDocument: { _id: 'site', title: 't' } }), globals)).toMatchObject({
      kind: 'change',
      event: { scope: 'global', slug: 'site', ids: ['site'], docs: [{ _id: 'site', title: 't' }] },
    });
    expect(normalizeChange(doc({ _id: token, operationType: 'insert', documentKey: { _id: 'other' }, fullDocument: { _id: 'other' } }), globals)).toEqual({ kind: 'ignore' });
  });

  it('turns a drop, rename or invalidate of the watched collection, or a drop of its database, into a reset, and ignores other operations', () => {
    const ns = { db: 'cms', coll: 'posts' };
    expect(normalizeChange(doc({ _id: token, operationType: 'drop', ns }), posts, 'cms').kind).toBe('reset');
    expect(normalizeChange(doc({ _id: token, operationType: 'rename', ns, to: { db: 'cms', coll: 'archive' } }), posts, 'cms').kind).toBe('reset');
    // Renamed onto the watched name: what it holds now is another collection's records.
    expect(normalizeChange(doc({ _id: token, operationType: 'rename', ns: { db: 'cms', coll: 'drafts' }, to: ns }), posts, 'cms').kind).toBe('reset');
    expect(normalizeChange(doc({ _id: token, operationType: 'dropDatabase', ns: { db: 'cms' } }), posts, 'cms').kind).toBe('reset');
    // MongoDB sends an invalidate only to the streams it ends, naming no namespace.
    expect(normalizeChange(doc({ _id: token, operationType: 'invalidate' }), posts, 'cms').kind).toBe('reset');
    expect(normalizeChange(doc({ _id: token, operationType: 'createIndexes' }), posts)).toEqual({ kind: 'ignore' });
  });

  it('ignores a drop, rename, dropDatabase or invalidate that names another collection or database, or none', () => {
    const other = [
      { operationType: 'drop', ns: { db: 'cms', coll: 'pages' } },
      { operationType: 'drop', ns: { db: 'other', coll: 'posts' } },
      { operationType: 'rename', ns: { db: 'cms', coll: 'pages' }, to: { db: 'cms', coll: 'old-pages' } },
      { operationType: 'dropDatabase', ns: { db: 'other' } },
      { operationType: 'invalidate', ns: { db: 'cms', coll: 'pages' } },
      // mongo-java-server sends every drop of the database to every stream, naming nothing.
      { operationType: 'drop' },
      { operationType: 'dropDatabase' },
    ];
    for (const event of other) expect(normalizeChange(doc({ _id: token, ...event }), posts, 'cms')).toEqual({ kind: 'ignore' });
  });
});
