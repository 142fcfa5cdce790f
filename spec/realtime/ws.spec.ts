// /ws over real sockets with a `ws` client: subscribe/unsubscribe acks, the same events as SSE, errors
// that keep the socket up, refused upgrades, 426 for a plain GET, ping/pong, and a host's own ws server beside it.
import { WebSocketServer } from 'ws';
import request from 'supertest';
import { asUser } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { PROBLEM, bearer, registerUser } from '../auth/auth-test-app';
import { type WsClient, openWs } from './realtime-clients';
import { type RealtimeTestApp, admin, createRealtimeTestApp } from './realtime-test-app';

// Real sockets and a shared, busy machine: more than jest's default 5 s per test.
jest.setTimeout(30_000);

let t: RealtimeTestApp;
const open: WsClient[] = [];

async function ws(path = '/api/ws', options: Parameters<typeof openWs>[2] = {}): Promise<WsClient> {
  const client = await openWs(t.server, path, options);
  open.push(client);
  return client;
}

const about = (id: string) => (m: Record<string, unknown>) => m.docId === id;

async function createOpen(name: string): Promise<string> {
  const res = await request(t.app).post('/api/open').set(...asUser(admin)).send({ name });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  t = await createRealtimeTestApp({ maxSubscriptions: 2, heartbeatMs: 100 });
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(() => t.close());

describe('WebSocket /ws', () => {
  it('acknowledges subscribe and unsubscribe, and sends the events of subscribed collections', async () => {
    const client = await ws();
    client.send({ type: 'subscribe', collections: ['open'] });
    expect(await client.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
    const id = await createOpen('live');
    const event = await client.next(about(id));
    const record = (await request(t.app).get(`/api/open/${id}`)).body;
    expect(event).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}-\d+$/), type: 'create', collection: 'open', docId: id, doc: record, timestamp: expect.any(String) });

    client.send({ type: 'unsubscribe', collections: ['open'] });
    expect(await client.next((m) => m.type === 'unsubscribed')).toEqual({ type: 'unsubscribed', collections: ['open'] });
    const later = await createOpen('unseen');
    // Messages arrive in order: had 'unseen' been sent, it would come before this acknowledgement.
    client.send({ type: 'subscribe', collections: ['open'] });
    await client.next((m) => m.type === 'subscribed');
    const after = await createOpen('seen');
    await client.next(about(after));
    expect(client.messages.items.some(about(later))).toBe(false);
  });

  it('answers bad messages with an error and keeps the socket up', async () => {
    const client = await ws();
    client.send('not json');
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ type: 'error', code: 'invalid_json' });
    client.send({ type: 'subscribe' });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    client.send({ type: 'shout', collections: ['open'] });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    client.socket.send(Buffer.from([1, 2, 3]));
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    client.send({ type: 'subscribe', collections: ['open', 'nope'] });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'unknown_collection' });
    // Anonymous: notes need a user (401), secrets an admin.
    client.send({ type: 'subscribe', collections: ['notes'] });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'unauthorized' });
    client.send({ type: 'subscribe', collections: ['open', 'links', 'posts'] });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'too_many_subscriptions' });
    // Still up, and nothing of the refused messages was subscribed.
    client.send({ type: 'subscribe', collections: ['open'] });
    expect(await client.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });

  it('refuses a collection the user may not read with forbidden, naming nothing of it', async () => {
    const user = await registerUser(t);
    const client = await ws(`/api/ws?token=${user.accessToken}`);
    client.send({ type: 'subscribe', collections: ['secrets'] });
    const error = await client.next((m) => m.type === 'error');
    expect(error).toEqual({ type: 'error', code: 'forbidden', message: expect.any(String) });
  });

  it('refuses the upgrade for a bad credential with a 401 problem', async () => {
    await expect(openWs(t.server, '/api/ws', { headers: { Authorization: 'Bearer nonsense' } })).rejects.toMatchObject({ status: 401 });
    const refused = await openWs(t.server, '/api/ws?token=nonsense').catch((e: { status: number; headers: Record<string, string>; body: string }) => e);
    expect(refused).toMatchObject({ status: 401 });
    const { headers, body } = refused as { headers: Record<string, string>; body: string };
    expect(headers['content-type']).toMatch(PROBLEM);
    expect(JSON.parse(body)).toMatchObject({ status: 401, code: 'invalid_token' });
    const user = await registerUser(t);
    await expect(openWs(t.server, `/api/ws?token=${user.accessToken}`, { headers: { 'X-API-Key': 'ck_x' } })).rejects.toMatchObject({ status: 401 });
    // The server is still up.
    expect((await request(t.app).get('/api/ws')).status).toBe(426);
  });

  it('refuses the upgrade for a repeated ?token= whichever comes first', async () => {
    const user = await registerUser(t);
    for (const query of [`token=${user.accessToken}&token=garbage`, `token=garbage&token=${user.accessToken}`]) {
      const refused = await openWs(t.server, `/api/ws?${query}`).catch((e: { status: number; headers: Record<string, string>; body: string }) => e);
      expect(refused).toMatchObject({ status: 401 });
      const { headers, body } = refused as { headers: Record<string, string>; body: string };
      expect(headers['content-type']).toMatch(PROBLEM);
      expect(JSON.parse(body)).toMatchObject({ status: 401, code: 'invalid_token' });
    }
  });

  it('answers a plain GET with 426 Upgrade Required', async () => {
    const res = await request(t.app).get('/api/ws');
    expect(res.status).toBe(426);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.headers.upgrade).toBe('websocket');
    expect(res.body.code).toBe('upgrade_required');
  });

  it('terminates a socket that stops answering pings', async () => {
    const client = await ws('/api/ws', { autoPong: false });
    expect(await client.closed).toBe(1006);
  });

  it('keeps answering pings for a live client', async () => {
    const client = await ws();
    let pings = 0;
    client.socket.on('ping', () => pings++);
    await until(() => pings >= 3, 10_000, 'three pings');
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });

  it('leaves other upgrades to the host: its own ws server keeps working beside it', async () => {
    const hostWss = new WebSocketServer({ noServer: true });
    const onUpgrade = (req: import('node:http').IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => {
      if (req.url !== '/host-ws') return;
      hostWss.handleUpgrade(req, socket, head, (s) => s.send(JSON.stringify({ type: 'host-hello' })));
    };
    t.server.on('upgrade', onUpgrade);
    try {
      const host = await openWs(t.server, '/host-ws');
      expect(await host.next((m) => m.type === 'host-hello')).toEqual({ type: 'host-hello' });
      host.close();
      // And ours still works beside it.
      const ours = await ws();
      ours.send({ type: 'subscribe', collections: ['open'] });
      await ours.next((m) => m.type === 'subscribed');
    } finally {
      t.server.off('upgrade', onUpgrade);
      hostWss.close();
    }
  });

  it('takes the bearer credential of the upgrade request and applies the user\'s access', async () => {
    const user = await registerUser(t);
    const [name, value] = bearer(user.accessToken);
    const client = await ws('/api/ws', { headers: { [name]: value } });
    client.send({ type: 'subscribe', collections: ['posts'] });
    await client.next((m) => m.type === 'subscribed');
    const post = await request(t.app).post('/api/posts').set(...bearer(user.accessToken)).send({ title: 'ws' });
    expect(await client.next(about(post.body.id))).toMatchObject({ type: 'create', collection: 'posts', doc: { id: post.body.id, title: 'ws' } });
  });
});
