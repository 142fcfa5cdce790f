// What a receiver gets of a record. By default the record as server code reads it: hidden fields out, but a
// field that field access hides from most callers (salary) in. An endpoint's `view` renders it as REST does
// for a given caller instead (its field read access, its read hooks) or only some fields. And a soft delete
// made by a bulk write (an update on the stream, which may not describe what it set) arrives as a delete,
// told from the record as realtime tells it.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { type Receiver, startReceiver } from './receivers';
import { until } from '../helpers/eventually';

const writer = asUser({ id: 'w1' });

interface Body {
  type: string;
  data: { id: string; doc?: Record<string, unknown>; updatedFields?: string[] };
}

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('what an endpoint receives of a record', () => {
  let t: TestApp;
  let whole: Receiver;
  let asReader: Receiver;
  let asHr: Receiver;
  let someFields: Receiver;

  beforeAll(async () => {
    [whole, asReader, asHr, someFields] = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver()]);
    const endpoint = (receiver: Receiver, more: Record<string, unknown> = {}) => ({ url: receiver.url, secret: receiver.secret, events: ['staff.*', 'notes.*'], ...more });
    t = await createTestApp({
      collections: [
        {
          slug: 'staff',
          fields: {
            name: { type: 'text' },
            team: { type: 'text' },
            salary: { type: 'number', access: { read: ({ user }) => user?.role === 'hr' } },
            pin: { type: 'text', hidden: true },
          },
          // Shows whose read the record went through.
          hooks: { afterRead: [({ doc, user }) => ({ ...doc, readAs: user?.id ?? 'server' })] },
        },
        { slug: 'notes', softDelete: true, fields: { name: { type: 'text' } } },
      ],
      webhooks: {
        endpoints: [
          endpoint(whole),
          endpoint(asReader, { view: { user: { id: 'reader-1', role: 'reader' } } }),
          endpoint(asHr, { view: { user: { id: 'hr-1', role: 'hr' } } }),
          endpoint(someFields, { events: ['staff.*'], view: { fields: ['name'] } }),
        ],
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([whole, asReader, asHr, someFields].map((r) => r?.close()));
  });

  const bodyOf = (receiver: Receiver, id: string, type: string) =>
    until(() => receiver.received.map((r) => JSON.parse(r.body) as Body).find((b) => b.data.id === id && b.type === type));

  it('by default: every field but hidden ones, a field hidden by field access included', async () => {
    const ann = await t.api.local.create('staff', { name: 'Ann', team: 'ops', salary: 5000, pin: '1234' });
    const { data } = await bodyOf(whole, ann.id, 'staff.create');
    expect(data.doc).toMatchObject({ name: 'Ann', team: 'ops', salary: 5000, readAs: 'server' });
    expect(data.doc).not.toHaveProperty('pin');
  });

  it("with view.user: the record as REST shows it to that user (its field read access, its read hooks)", async () => {
    const bo = await t.api.local.create('staff', { name: 'Bo', team: 'ops', salary: 6000, pin: '1' });
    const { body: asRest } = await request(t.app).get(`/api/staff/${bo.id}`).set(...asUser({ id: 'reader-1', role: 'reader' })).expect(200);
    const reader = await bodyOf(asReader, bo.id, 'staff.create');
    expect(reader.data.doc).toEqual(asRest);
    expect(reader.data.doc).not.toHaveProperty('salary');
    expect(reader.data.doc).toMatchObject({ readAs: 'reader-1' });
    const hr = await bodyOf(asHr, bo.id, 'staff.create');
    expect(hr.data.doc).toMatchObject({ name: 'Bo', salary: 6000, readAs: 'hr-1' });
    expect(hr.data.doc).not.toHaveProperty('pin');
  });

  it('an update names only the changed fields the view shows', async () => {
    const cy = await t.api.local.create('staff', { name: 'Cy', team: 'ops', salary: 1 });
    const { ObjectId } = (await import('mongoose')).mongo;
    await t.connection.db!.collection('staff').updateOne({ _id: new ObjectId(cy.id) }, { $set: { salary: 2, team: 'dev' } });
    const reader = await bodyOf(asReader, cy.id, 'staff.update');
    const hr = await bodyOf(asHr, cy.id, 'staff.update');
    const fields = await bodyOf(someFields, cy.id, 'staff.update');
    expect(reader.data.doc).not.toHaveProperty('salary');
    expect(hr.data.doc).toMatchObject({ salary: 2, team: 'dev' });
    // The change stream describes the update: only what each view shows is named.
    expect(hr.data.updatedFields?.sort()).toEqual(['salary', 'team']);
    expect(reader.data.updatedFields).toEqual(['team']);
    expect(fields.data.updatedFields).toEqual([]);
  });

  it('with view.fields: only those fields (and the id)', async () => {
    const di = await t.api.local.create('staff', { name: 'Di', team: 'ops', salary: 7000 });
    const { data } = await bodyOf(someFields, di.id, 'staff.create');
    expect(data.doc).toEqual({ id: di.id, name: 'Di', readAs: 'server' });
  });

  it('a soft delete by a bulk DELETE arrives as a delete, without the record', async () => {
    const note = await t.api.local.create('notes', { name: 'to go' });
    await request(t.app).delete('/api/notes').query({ where: JSON.stringify({ name: { eq: 'to go' } }) }).set(...writer).expect(200);
    const removal = await bodyOf(whole, note.id, 'notes.delete');
    expect(removal.data).toEqual({ id: note.id, collection: 'notes' });
    expect(whole.received.map((r) => JSON.parse(r.body) as Body).filter((b) => b.data.id === note.id).map((b) => b.type)).toEqual(['notes.create', 'notes.delete']);
  });
});
