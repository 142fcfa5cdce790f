// The bus-to-hub feed on a stand-in runtime: local events are delivered at once, the stream's echoes of them
// are dropped while other writers' stream events get through with their resume token as id; rows a
// publisher omitted are loaded, in order; updatedFields never names a hidden field.
import type { mongo } from 'mongoose';
import { Types } from 'mongoose';
import { normalizeChange } from '../../lib/changes/normalize-change';
import { createChangeBus } from '../../lib/changes/change-bus';
import type { CollectionRuntime, Runtime } from '../../lib/operations/runtime';
import { createEventHub } from '../../lib/realtime/event-hub';
import { connectHub } from '../../lib/realtime/hub-feed';
import type { HubEntry } from '../../lib/realtime/realtime-event';
import { describeCollection } from '../../lib/schema/describe-collection';
import { systemClock } from '../../lib/util/clock';

const silent = { error: jest.fn(), warn: () => undefined, info: () => undefined, debug: () => undefined };

function setup() {
  const stored = new Map<string, Record<string, unknown>>();
  const find = jest.fn((filter: { _id: { $in: string[] } }) => ({
    lean: async () => filter._id.$in.map((id) => stored.get(id)).filter(Boolean),
  }));
  const posts = {
    descriptor: describeCollection({ slug: 'posts', fields: { title: { type: 'text' }, secret: { type: 'text', hidden: true } } }),
    model: { find },
    serialize: (row: Record<string, unknown>) => ({ id: String(row._id), title: row.title }),
  } as unknown as CollectionRuntime;
  const changes = createChangeBus(silent);
  const runtime = { changes, collections: new Map([['posts', posts]]), config: { logger: silent, clock: systemClock } } as unknown as Runtime;
  const hub = createEventHub<HubEntry>(100);
  const seen: HubEntry[] = [];
  hub.subscribe<true>({ deliver: (entry) => seen.push(entry) }).add([['posts', true]]);
  const stop = connectHub(runtime, hub, new Set());
  return { changes, stored, find, seen, stop };
}

const row = (title: string) => ({ _id: new Types.ObjectId(), title, secret: 'hidden' });

describe('hub feed', () => {
  it('turns a local change into one serialized entry per record, with increasing ids of this run', () => {
    const { changes, seen } = setup();
    const a = row('a');
    const b = row('b');
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'create', ids: [String(a._id), String(b._id)], docs: [a, b], origin: 'local', timestamp: new Date(0) });
    expect(seen.map((e) => e.event)).toEqual([
      { id: expect.stringMatching(/^[0-9a-f]{8}-1$/), type: 'create', collection: 'posts', docId: String(a._id), doc: { id: String(a._id), title: 'a' }, timestamp: '1970-01-01T00:00:00.000Z' },
      { id: expect.stringMatching(/^[0-9a-f]{8}-2$/), type: 'create', collection: 'posts', docId: String(b._id), doc: { id: String(b._id), title: 'b' }, timestamp: '1970-01-01T00:00:00.000Z' },
    ]);
    expect(seen[0].row).toBe(a);
  });

  it('delivers a local write once: the stream\'s echo of it is dropped, another writer\'s change is not', () => {
    const { changes, seen } = setup();
    const a = { ...row('a'), updatedAt: new Date(1000) };
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'update', ids: [String(a._id)], docs: [a], fields: ['title'], origin: 'local' });
    expect(seen.map((e) => e.event.type)).toEqual(['update']);
    // The echo: same record, same version.
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'update', ids: [String(a._id)], docs: [a], origin: 'stream', resumeToken: { _data: 'ECHO' } });
    expect(seen).toHaveLength(1);
    // Someone else's later write to the same record: a new version, delivered with its resume token.
    const b = { ...a, title: 'b', updatedAt: new Date(2000) };
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'update', ids: [String(a._id)], docs: [b], origin: 'stream', resumeToken: { _data: '8263ABCD' } });
    expect(seen.map((e) => e.event.id)).toEqual([expect.stringMatching(/^[0-9a-f]{8}-1$/), '8263ABCD']);
    // A local delete, then its echo.
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'delete', ids: [String(a._id)], docs: [b], origin: 'local' });
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'delete', ids: [String(a._id)], origin: 'stream', resumeToken: { _data: 'ECHO2' } });
    expect(seen.map((e) => e.event.type)).toEqual(['update', 'update', 'delete']);
    expect(seen[2].event.doc).toBeUndefined();
  });

  it('loads the rows a publisher did not send, and keeps later events behind it in order', async () => {
    const { changes, stored, find, seen } = setup();
    const a = row('a');
    const b = row('b');
    stored.set(String(a._id), a);
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'update', ids: [String(a._id)], origin: 'local' });
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'create', ids: [String(b._id)], docs: [b], origin: 'local' });
    expect(seen).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(find).toHaveBeenCalledTimes(1);
    expect(seen.map((e) => e.event.docId)).toEqual([String(a._id), String(b._id)]);
    expect(seen[0].row).toBe(a);
  });

  it('strips hidden and unknown field names from updatedFields, for local and stream events alike', () => {
    const { changes, seen } = setup();
    const a = { ...row('a'), updatedAt: new Date(1000) };
    const id = String(a._id);
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'update', ids: [id], docs: [a], fields: ['title', 'secret'], origin: 'local' });
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'update', ids: [id], docs: [{ ...a, updatedAt: new Date(2000) }], fields: ['secret'], origin: 'local' });
    // Another writer, as the change stream reports it: dotted paths, removals, Mongoose's __v.
    const streamed = normalizeChange(
      {
        _id: { _data: 'T1' },
        operationType: 'update',
        documentKey: { _id: a._id },
        fullDocument: { ...a, updatedAt: new Date(3000) },
        updateDescription: { updatedFields: { 'secret.part': 1, title: 'b', updatedAt: new Date(3000), __v: 1 }, removedFields: ['secret'] },
      } as unknown as mongo.ChangeStreamDocument,
      { scope: 'collection', slugs: ['posts'], collectionName: 'posts' },
    );
    if (streamed.kind !== 'change') throw new Error('not a change');
    expect(streamed.event.fields).toEqual(['secret', 'title', 'updatedAt', '__v']);
    changes.emitChange(streamed.event);
    expect(seen.map((e) => e.event.updatedFields)).toEqual([['title'], [], ['title', 'updatedAt']]);
    expect(JSON.stringify(seen.map((e) => e.event))).not.toContain('secret');
  });

  it('publishes deletes without a row as such, and stops on unsubscribe; globals are not realtime events', () => {
    const { changes, seen, stop, find } = setup();
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'delete', ids: ['x'], origin: 'stream', resumeToken: { _data: 'T1' } });
    changes.emitChange({ scope: 'global', slug: 'site', type: 'update', ids: ['site'], origin: 'local' });
    expect(find).not.toHaveBeenCalled();
    expect(seen.map((e) => [e.event.type, e.row])).toEqual([['delete', undefined]]);
    stop();
    changes.emitChange({ scope: 'collection', slug: 'posts', type: 'delete', ids: ['y'], origin: 'local' });
    expect(seen).toHaveLength(1);
  });
});
