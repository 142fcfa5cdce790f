// A server-side change of a record (auth's writes to user records use it): stored as given, through the
// store, the seam and the change bus; bookkeeping leaves updatedAt alone and tells nobody.
import mongoose from 'mongoose';
import type { ChangeEvent } from '../../lib/changes/change-bus';
import type { Runtime } from '../../lib/operations/runtime';
import { systemUpdate } from '../../lib/operations';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

describe('systemUpdate', () => {
  let t: TestApp;
  const events: ChangeEvent[] = [];
  const recorded: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ collections: [{ slug: 'people', access: { read: () => true }, fields: { name: { type: 'text' }, token: { type: 'text', hidden: true } } }] });
  });
  afterAll(() => t.close());

  it('stores an edit (published, updatedAt moved) and bookkeeping (not published, updatedAt kept)', async () => {
    const created = await t.api.local.create('people', { name: 'a' });
    const _id = new mongoose.Types.ObjectId(created.id);
    const people = t.connection.collection('people');
    const before = await people.findOne({ _id });
    events.length = 0;
    const models = t.connection.models;
    const collection = { descriptor: { slug: 'people', isGlobal: false }, model: models[Object.keys(models).find((n) => models[n].collection.collectionName === 'people')!] };
    // A runtime of the router's parts the write touches: its bus, a recorder at the seam, the connection.
    const runtime = { changes: { emitChange: (event: ChangeEvent) => events.push(event) }, hooks: { changeStored: [async () => void recorded.push('seam')] }, connection: t.connection } as unknown as Runtime;
    const kept = await systemUpdate({ runtime, collection: collection as never, filter: { _id }, set: { token: 'h' }, edit: false });
    expect(kept).toMatchObject({ token: 'h', _rev: 2 });
    expect((await people.findOne({ _id }))?.updatedAt).toEqual(before?.updatedAt);
    expect(events).toHaveLength(0);
    const edited = await systemUpdate({ runtime, collection: collection as never, filter: { _id }, set: { name: 'b' }, projection: { token: 0 } });
    expect(edited).toMatchObject({ name: 'b', _rev: 3 });
    expect(edited).not.toHaveProperty('token');
    expect((await people.findOne({ _id }))?.updatedAt).not.toEqual(before?.updatedAt);
    expect(events.map((e) => [e.type, e.ids, e.fields])).toEqual([['update', [created.id], ['name']]]);
    expect(recorded).toEqual(['seam', 'seam']);
    expect(await systemUpdate({ runtime, collection: collection as never, filter: { _id: new mongoose.Types.ObjectId() }, set: { name: 'x' } })).toBeNull();
  });
});
