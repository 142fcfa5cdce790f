// A collection that fronts documents something else wrote (`existing: true`, e.g. the host's own members):
// the router builds no index on it unless `buildIndexes` asks, and documents without timestamps read as
// `createdAt: null`, which the OpenAPI document allows.
import type { Connection } from 'mongoose';
import request from 'supertest';
import { asUser, createTestApp, type TestApp } from '../helpers/create-test-app';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';

const admin = asUser({ id: '000000000000000000000001', role: 'admin' });
const fields = { name: { type: 'text' as const }, email: { type: 'email' as const, unique: true } };

let connection: Connection;

beforeEach(async () => {
  connection = await openTestConnection();
  // Written by the host's own code, long before the router: no createdAt, no updatedAt.
  await connection.collection('members').insertOne({ name: 'Ann', email: 'ann@example.com' });
});

afterEach(() => closeTestConnection(connection));

const indexNames = async () => (await connection.collection('members').indexes()).map((index) => index.name).sort();

it('builds no index on an existing collection, and answers its documents with null timestamps the document allows', async () => {
  const t: TestApp = await createTestApp({ collections: [{ slug: 'members', existing: true, sortable: ['name'], fields }] }, { connection });
  try {
    expect(await indexNames()).toEqual(['_id_']);
    const list = await request(t.app).get('/api/members').set(...admin).expect(200);
    expect(list.body.data).toEqual([expect.objectContaining({ name: 'Ann', createdAt: null, updatedAt: null })]);
    const doc = (await request(t.app).get('/api/docs/openapi.json')).body;
    const record = doc.components.schemas.Members ?? doc.components.schemas.Member;
    expect(record.properties.createdAt.type).toEqual(['string', 'null']);
    expect(record.properties.updatedAt.type).toEqual(['string', 'null']);
    // Read one, change it, and it is the router's record from then on; a field it does not know stays.
    await connection.collection('members').updateOne({ name: 'Ann' }, { $set: { legacyId: 7 } });
    const id = list.body.data[0].id;
    const one = await request(t.app).get(`/api/members/${id}`).set(...admin).expect(200);
    const patched = await request(t.app).patch(`/api/members/${id}`).set(...admin).set('If-Match', one.headers.etag).send({ name: 'Ann B.' }).expect(200);
    expect(patched.body).toMatchObject({ name: 'Ann B.', createdAt: null, updatedAt: expect.any(String) });
    expect(patched.body.legacyId).toBeUndefined();
    expect(await connection.collection('members').findOne({ name: 'Ann B.' })).toMatchObject({ legacyId: 7 });
    // What the router writes still carries timestamps.
    const created = await request(t.app).post('/api/members').set(...admin).send({ name: 'Bob', email: 'bob@example.com' }).expect(201);
    expect(created.body.createdAt).toEqual(expect.any(String));
  } finally {
    await t.close();
  }
});

it('builds its indexes when buildIndexes says so', async () => {
  const t = await createTestApp({ collections: [{ slug: 'members', existing: true, buildIndexes: true, fields }] }, { connection });
  try {
    expect(await indexNames()).toEqual(['_id_', 'createdAt_-1__id_-1', 'email_1']);
  } finally {
    await t.close();
  }
});

it('keeps timestamps non-null in the document of a collection the router owns', async () => {
  const t = await createTestApp({ collections: [{ slug: 'members', fields }] }, { connection });
  try {
    const doc = (await request(t.app).get('/api/docs/openapi.json')).body;
    const record = doc.components.schemas.Members ?? doc.components.schemas.Member;
    expect(record.properties.createdAt.type).toBe('string');
    expect(await indexNames()).toEqual(['_id_', 'createdAt_-1__id_-1', 'email_1']);
  } finally {
    await t.close();
  }
});
