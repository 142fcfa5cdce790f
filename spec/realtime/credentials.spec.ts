// A subscription lives only as long as its credential and access: expiry, revocation, deletion of the
// user and a lost role end it or the affected collection (re-checked every credentialCheckMs and on user changes).
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { SECRET, bearer, registerAdmin, registerUser } from '../auth/auth-test-app';
import { type SseClient, type WsClient, openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

// Real sockets and a shared, busy machine: more than jest's default 5 s per test.
jest.setTimeout(30_000);

let t: RealtimeTestApp;
const sse: SseClient[] = [];
const ws: WsClient[] = [];

beforeAll(async () => {
  t = await createRealtimeTestApp({ credentialCheckMs: 200 }, { auth: { jwtExpiry: '2s' } });
});
afterEach(() => {
  for (const c of sse.splice(0)) c.close();
  for (const c of ws.splice(0)) c.close();
});
afterAll(() => t.close());

/**
 * A valid access token for `user` that outlives the test. The app's own tokens last 2 s (for the expiry
 * tests), and a token issued late in a second has little over one left: on a busy machine it could expire
 * before the change a test waits for, and the test would see token_expired instead.
 */
const lasting = (user: { id: string }) => jwt.sign({ typ: 'access', col: 'users', sid: 'lasting', sub: user.id }, SECRET, { algorithm: 'HS256', expiresIn: 120 });

describe('credential re-checks', () => {
  it('ends an SSE stream when its access token expires', async () => {
    const user = await registerUser(t);
    const client = await openSse(t.server, `/api/sse?collections=posts&token=${user.accessToken}`);
    sse.push(client);
    expect(client.status).toBe(200);
    const error = await client.next((e) => e.event === 'error', 10_000);
    expect(JSON.parse(error.data)).toMatchObject({ code: 'token_expired' });
    await client.ended;
  }, 20_000);

  it('ends an SSE stream when its API key is revoked', async () => {
    const user = await registerUser(t);
    const key = await request(t.app).post('/api/users/api-keys').set(...bearer(lasting(user))).send({ name: 'k', scopes: ['read'] });
    const client = await openSse(t.server, '/api/sse?collections=posts', { 'X-API-Key': key.body.apiKey.key });
    sse.push(client);
    expect(client.status).toBe(200);
    expect((await request(t.app).delete(`/api/users/api-keys/${key.body.apiKey.id}`).set(...bearer(lasting(user)))).status).toBe(200);
    const error = await client.next((e) => e.event === 'error');
    expect(JSON.parse(error.data)).toMatchObject({ code: 'invalid_api_key' });
    await client.ended;
  });

  it('closes a WebSocket whose user is deleted', async () => {
    const admin = await registerAdmin(t);
    const user = await registerUser(t);
    const client = await openWs(t.server, `/api/ws?token=${lasting(user)}`);
    ws.push(client);
    client.send({ type: 'subscribe', collections: ['posts'] });
    await client.next((m) => m.type === 'subscribed');
    expect((await request(t.app).delete(`/api/users/${user.id}`).set(...bearer(lasting(admin)))).status).toBe(200);
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_token' });
    expect(await client.closed).toBe(1008);
  });

  it('drops only the collection a user may no longer read, and says so', async () => {
    const boss = await registerAdmin(t);
    const demoted = await registerAdmin(t);
    const client = await openWs(t.server, `/api/ws?token=${lasting(demoted)}`);
    ws.push(client);
    client.send({ type: 'subscribe', collections: ['secrets', 'posts'] });
    await client.next((m) => m.type === 'subscribed');
    const res = await request(t.app).patch(`/api/users/${demoted.id}`).set(...bearer(lasting(boss))).send({ role: 'user' });
    expect(res.status).toBe(200);
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'forbidden', collection: 'secrets' });
    // No secrets after that, but posts still arrive.
    const secret = await request(t.app).post('/api/secrets').set(...bearer(lasting(boss))).send({ name: 'hush' });
    const post = await request(t.app).post('/api/posts').set(...bearer(lasting(boss))).send({ title: 'still here' });
    await client.next((m) => m.docId === post.body.id);
    expect(client.messages.items.some((m) => m.docId === secret.body.id)).toBe(false);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });
});
