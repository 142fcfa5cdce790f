// Writes made outside this router reach its realtime clients over real sockets: a document written
// directly through the driver, a record created through a second router on the same database, and a
// delete made elsewhere right after this router deleted, restored or re-created the same record.
import mongoose, { type Connection, Types } from 'mongoose';
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { capabilities, describeIf, testDbUri } from '../helpers/test-db';
import { type SseClient, type WsClient, openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, REALTIME_COLLECTIONS, admin, createRealtimeTestApp, hostUser } from './realtime-test-app';

jest.setTimeout(30_000);

describeIf(capabilities().changeStreams, 'the server has no change streams')('writes made elsewhere', () => {
  let t: RealtimeTestApp;
  let other: TestApp;
  let otherConnection: Connection;
  const clients: Array<SseClient | WsClient> = [];

  beforeAll(async () => {
    t = await createRealtimeTestApp();
    // A second router (another instance of the service) on its own connection to the same database.
    otherConnection = await mongoose.createConnection(testDbUri(), { dbName: t.connection.name }).asPromise();
    other = await createTestApp({ collections: REALTIME_COLLECTIONS }, { connection: otherConnection });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  afterAll(async () => {
    await other.close();
    await otherConnection.close();
    await t.close();
  });

  it('a document inserted through the driver reaches SSE and WebSocket clients as a create', async () => {
    const sse = await openSse(t.server, '/api/sse?collections=open');
    const ws = await openWs(t.server, '/api/ws');
    clients.push(sse, ws);
    ws.send({ type: 'subscribe', collections: ['open'] });
    await ws.next((m) => m.type === 'subscribed');
    const now = new Date();
    const { insertedId } = await t.connection.db!.collection('open').insertOne({ name: 'from the driver', createdAt: now, updatedAt: now });
    const id = insertedId.toHexString();
    const viaSse = await sse.next((e) => e.data.includes(`"docId":"${id}"`));
    expect(viaSse.event).toBe('create');
    expect(JSON.parse(viaSse.data)).toMatchObject({ type: 'create', collection: 'open', docId: id, doc: { id, name: 'from the driver' } });
    const viaWs = await ws.next((m) => m.docId === id);
    expect(viaWs).toMatchObject({ type: 'create', collection: 'open', docId: id, doc: { id, name: 'from the driver' } });
  });

  it('a record deleted through the driver reaches clients as a delete, without the record', async () => {
    const now = new Date();
    const { insertedId } = await t.connection.db!.collection('open').insertOne({ name: 'short-lived', createdAt: now, updatedAt: now });
    const id = insertedId.toHexString();
    const sse = await openSse(t.server, '/api/sse?collections=open');
    clients.push(sse);
    await t.connection.db!.collection('open').deleteOne({ _id: insertedId });
    const deleted = await sse.next((e) => e.event === 'delete' && e.data.includes(`"docId":"${id}"`));
    expect(JSON.parse(deleted.data)).not.toHaveProperty('doc');
  });

  it('a record created through another router on the same database reaches this router\'s clients', async () => {
    const sse = await openSse(t.server, '/api/sse?collections=open');
    clients.push(sse);
    const created = await request(other.app).post('/api/open').send({ name: 'from the other instance' });
    expect(created.status).toBe(201);
    const event = await sse.next((e) => e.data.includes(`"docId":"${created.body.id}"`));
    expect(event.event).toBe('create');
    expect(JSON.parse(event.data).doc).toEqual(created.body);
  });

  it('a delete made elsewhere after this router soft-deleted and restored the record reaches clients', async () => {
    const sse = await openSse(t.server, '/api/sse?collections=notes', hostUser(admin));
    clients.push(sse);
    const created = await request(t.app).post('/api/notes').set(...asUser(admin)).send({ text: 'kept', owner: admin.id });
    const id = String(created.body.id);
    expect((await request(t.app).delete(`/api/notes/${id}`).set(...asUser(admin))).status).toBe(200);
    expect((await request(t.app).post(`/api/notes/${id}/restore`).set(...asUser(admin))).status).toBe(200);
    // The restore brings the record back into view: a create.
    await sse.next((e) => e.event === 'create' && e.data.includes('"reason":"entered-view"') && e.data.includes(`"docId":"${id}"`));
    const seen = sse.events.items.length;
    await t.connection.db!.collection('notes').deleteOne({ _id: new Types.ObjectId(id) });
    const deleted = await sse.events.find((e) => e.event === 'delete' && e.data.includes(`"docId":"${id}"`), seen, 8000);
    expect(JSON.parse(deleted.data)).toMatchObject({ type: 'delete', collection: 'notes', docId: id });
  });

  it('a soft delete made elsewhere reaches clients as a delete, also right after this router soft-deleted and restored the record', async () => {
    const sse = await openSse(t.server, '/api/sse?collections=notes', hostUser(admin));
    clients.push(sse);
    const created = await request(t.app).post('/api/notes').set(...asUser(admin)).send({ text: 'kept', owner: admin.id });
    const id = String(created.body.id);
    expect((await request(t.app).delete(`/api/notes/${id}`).set(...asUser(admin))).status).toBe(200);
    expect((await request(t.app).post(`/api/notes/${id}/restore`).set(...asUser(admin))).status).toBe(200);
    // The restore brings the record back into view: a create.
    await sse.next((e) => e.event === 'create' && e.data.includes('"reason":"entered-view"') && e.data.includes(`"docId":"${id}"`));
    const seen = sse.events.items.length;
    const now = new Date();
    await t.connection.db!.collection('notes').updateOne({ _id: new Types.ObjectId(id) }, { $set: { deletedAt: now, updatedAt: now } });
    const deleted = await sse.events.find((e) => e.event === 'delete' && e.data.includes(`"docId":"${id}"`), seen, 8000);
    expect(JSON.parse(deleted.data)).toEqual({ id: deleted.id, type: 'delete', collection: 'notes', docId: id, timestamp: expect.any(String) });
  });

  it('a delete made elsewhere of a record re-created after this router deleted it reaches clients', async () => {
    const sse = await openSse(t.server, '/api/sse?collections=open');
    clients.push(sse);
    const id = String((await request(t.app).post('/api/open').send({ name: 'first life' })).body.id);
    expect((await request(t.app).delete(`/api/open/${id}`)).status).toBe(200);
    const now = new Date();
    await t.connection.db!.collection('open').insertOne({ _id: new Types.ObjectId(id), name: 'second life', createdAt: now, updatedAt: now });
    await sse.next((e) => e.event === 'create' && e.data.includes('second life'));
    const seen = sse.events.items.length;
    await t.connection.db!.collection('open').deleteOne({ _id: new Types.ObjectId(id) });
    await sse.events.find((e) => e.event === 'delete' && e.data.includes(`"docId":"${id}"`), seen, 8000);
  });
});
