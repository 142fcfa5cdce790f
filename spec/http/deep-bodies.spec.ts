// A JSON body nested deeper than any record needs is a 400 problem+json (malformed_body), with or without
// an Idempotency-Key: before, the key's fingerprint serialized it again and overflowed the stack (a 500).
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ collections: [{ slug: 'notes', access: { create: () => true }, fields: { text: { type: 'text' }, meta: { type: 'json' } } }] });
});
afterAll(() => t.close());

const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

it.each([
  ['without a key', {}],
  ['with an Idempotency-Key', { 'Idempotency-Key': 'deep-body-1' }],
])('a body nested 5000 levels deep is a 400, %s', async (_, headers) => {
  const res = await request(t.app).post('/api/notes').set(...asUser({ id: 'u1' })).set(headers).set('Content-Type', 'application/json').send(`{"text":"x","meta":${deep(5000)}}`);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'malformed_body', detail: expect.stringContaining('nested deeper than 64') });
  expect(await t.connection.collection('notes').countDocuments({})).toBe(0);
  expect(t.hostErrors).toEqual([]);
});

it('a body nested a few levels deep in a json field is stored', async () => {
  const res = await request(t.app).post('/api/notes').set(...asUser({ id: 'u1' })).send({ text: 'y', meta: { a: { b: { c: [1, [2, [3]]] } } } });
  expect(res.status).toBe(201);
});
