// The cache with the package's own credentials: JWT users with owner-constrained access keep their own
// entries, API keys are held to their scopes before the cache is consulted, anonymous callers get theirs.
import request from 'supertest';
import type { AccessArgs } from '../../lib';
import { type AuthTestApp, bearer, createAuthTestApp, registerUser, type Registered } from '../auth/auth-test-app';
import { eventually } from '../helpers/eventually';

/** Notes: anonymous readers see public ones; users see their own. */
function readNotes({ user }: AccessArgs) {
  return user ? { owner: { eq: user.id } } : { public: { eq: true } };
}

let t: AuthTestApp;
let alice: Registered;
let bob: Registered;

beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [
      {
        slug: 'notes',
        cache: { ttl: 60 },
        fields: { text: { type: 'text' }, owner: { type: 'text' }, public: { type: 'boolean', default: false } },
        access: { read: readNotes, create: () => true },
      },
    ],
  });
  alice = await registerUser(t);
  bob = await registerUser(t);
  await t.api.local.create('notes', { text: 'alice private', owner: alice.id });
  await t.api.local.create('notes', { text: 'bob private', owner: bob.id });
  await t.api.local.create('notes', { text: 'public', owner: bob.id, public: true });
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const texts = (res: request.Response) => (res.body.data as Array<{ text: string }>).map((d) => d.text).sort();

async function createKey(user: Registered, scopes: string[]): Promise<string> {
  const res = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'k', scopes });
  expect(res.status).toBe(201);
  return res.body.apiKey.key;
}

it('gives each signed-in user their own view, and anonymous callers theirs', async () => {
  const list = (headers: Array<[string, string]>) => headers.reduce((req, h) => req.set(...h), request(t.app).get('/api/notes'));
  await eventually(async () => {
    const a = await list([bearer(alice.accessToken)]);
    const b = await list([bearer(bob.accessToken)]);
    const anonymous = await list([]);
    expect(texts(a)).toEqual(['alice private']);
    expect(texts(b)).toEqual(['bob private', 'public']);
    expect(texts(anonymous)).toEqual(['public']);
    const aAgain = await list([bearer(alice.accessToken)]);
    expect(aAgain.headers['x-cache']).toBe('HIT');
    expect(texts(aAgain)).toEqual(['alice private']);
    expect(aAgain.headers['cache-control']).toBe('private, no-cache');
  });
});

it('holds API keys to their scopes before the cache: a read key shares the owner’s view, a write-only key gets the anonymous one', async () => {
  const readKey = await createKey(alice, ['read']);
  const writeKey = await createKey(alice, ['write']);
  await eventually(async () => {
    await request(t.app).get('/api/notes?sort=text').set(...bearer(alice.accessToken));
    const viaKey = await request(t.app).get('/api/notes?sort=text').set('X-API-Key', readKey);
    expect(viaKey.status).toBe(200);
    expect(viaKey.headers['x-cache']).toBe('HIT');
    expect(texts(viaKey)).toEqual(['alice private']);
  });
  // A key without the read scope reads as an anonymous caller: the public notes, never the owner's view.
  const anonymous = await request(t.app).get('/api/notes?sort=text');
  const writeOnly = await request(t.app).get('/api/notes?sort=text').set('X-API-Key', writeKey);
  expect(writeOnly.status).toBe(200);
  expect(JSON.stringify(writeOnly.body)).not.toContain('alice private');
  expect(texts(writeOnly)).toEqual(texts(anonymous));
});
