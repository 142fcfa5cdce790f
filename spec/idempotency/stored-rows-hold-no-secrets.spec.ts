// What the Idempotency-Key store keeps, read as someone with read access to the database would
// read it (a backup, a replica, a log of documents): nothing in a row may give away a secret a request or its
// answer carried, neither stored as is nor as a hash that a guess can be checked against.
import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import { mongo } from 'mongoose';
import request from 'supertest';
import { IDEMPOTENCY_COLLECTION } from '../../lib/idempotency/idempotency-store';
import { type TestApp, type TestConfig, asUser, createTestApp } from '../helpers/create-test-app';

/** Tokens the one-time login endpoint handed out, and how often it ran. */
const issued: string[] = [];

const CONFIG = {
  auth: { jwtSecret: 'x'.repeat(40), passwordHash: { cost: 1024 } },
  collections: [
    { slug: 'users', auth: true, fields: {} },
    { slug: 'notes', access: { create: () => true, read: () => true }, fields: { title: { type: 'text' } } },
  ],
  endpoints: [
    {
      // A host's own credential route (a magic link, a one-time code): its answer is a secret, marked as
      // such for every store on the way, as RFC 6749 asks of token answers.
      path: '/one-time-login',
      method: 'post',
      sideEffects: true,
      handler: ({ res }) => {
        const token = randomBytes(16).toString('hex');
        issued.push(token);
        res.set('Cache-Control', 'no-store');
        return { token };
      },
    },
  ],
} as TestConfig;

const admin = asUser({ id: '000000000000000000000009', role: 'admin' });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(CONFIG);
});
afterEach(async () => {
  expect(t.hostErrors).toEqual([]);
  await Promise.all(['users', 'notes', IDEMPOTENCY_COLLECTION].map((name) => t.connection.collection(name).deleteMany({})));
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const newKey = () => `secret-${process.pid}-${++counter}-${Date.now()}`;
const rows = () => t.connection.collection(IDEMPOTENCY_COLLECTION).find().toArray();
/** Every row as the bytes the database holds (a kept answer's body included as it was sent). */
const storedBytes = async () => Buffer.concat((await rows()).map((row) => mongo.BSON.serialize(row)));

describe('a create carrying a password (an admin creating a user)', () => {
  it('leaves nothing in its row to check a guessed password against', async () => {
    const email = 'new-user@example.com';
    const password = 'Str0ng-passw0rd-42';
    const createUser = (key: string, body: object) => request(t.app).post('/api/users').set(...admin).set('Idempotency-Key', key).send(body);
    const key = newKey();
    const first = await createUser(key, { email, password });
    expect(first.status).toBe(201);
    // The key still works as it should: the same request replays, another is refused.
    expect((await createUser(key, { email, password })).headers['idempotent-replayed']).toBe('true');
    expect((await createUser(key, { email, password: 'An0ther-passw0rd' })).status).toBe(422);
    const [row] = await rows();
    expect((await storedBytes()).includes(password)).toBe(false);
    // A guess checked as the code that wrote the row would hash the request (method, path, body).
    const hashOf = (body: object) => createHash('sha256').update(JSON.stringify(['POST', '/api/users', 'json', body])).digest('hex');
    for (const guess of ['123456', 'password', password]) expect(hashOf({ email, password: guess })).not.toBe(row.fingerprint);
    // Whatever the hash: it must depend on something the row does not hold. The same request under another
    // key (the key is never stored) gives another fingerprint.
    await t.connection.collection('users').deleteMany({});
    expect((await createUser(newKey(), { email, password })).status).toBe(201);
    const fingerprints = new Set((await rows()).map((each) => each.fingerprint));
    expect(fingerprints.size).toBe(2);
  });
});

describe('an answer marked Cache-Control: no-store (a token)', () => {
  it('is sent, never kept nor replayed: its repeat is a 422 saying so, and the handler does not run again', async () => {
    const key = newKey();
    const body = { code: '493817' };
    const first = await request(t.app).post('/api/one-time-login').set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(200);
    expect(first.body.token).toBe(issued.at(-1));
    expect((await storedBytes()).includes(first.body.token)).toBe(false);
    const again = await request(t.app).post('/api/one-time-login').set('Idempotency-Key', key).send(body);
    expect(again.status).toBe(422);
    expect(again.body.code).toBe('idempotency_key_reused');
    expect(again.body.detail).toContain('no-store');
    expect(again.text).not.toContain(first.body.token);
    expect(issued).toHaveLength(1);
  });
});

describe('a host that marks every answer Cache-Control: no-store', () => {
  it('still has its creates replayed: only an answer its route marks so is not kept', async () => {
    const host = express();
    host.use((_req, res, next) => {
      res.set('Cache-Control', 'no-store');
      next();
    });
    host.use(t.app);
    const key = newKey();
    const first = await request(host).post('/api/notes').set('Idempotency-Key', key).send({ title: 'kept' });
    expect(first.status).toBe(201);
    const again = await request(host).post('/api/notes').set('Idempotency-Key', key).send({ title: 'kept' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await t.connection.collection('notes').countDocuments()).toBe(1);
  });
});
