// What realtime subscribers of an auth collection see of auth's own writes to a user record: one update
// event per write, whatever the change stream echoes, naming only the visible fields it changed (none for a
// password, a token's digest or its expiry) and carrying none of their values.
import { Types } from 'mongoose';
import request from 'supertest';
import { hashPassword } from '../../lib/auth/password-hash';
import { hashToken } from '../../lib/util/random-token';
import { FAST_HASH, type Registered, bearer, registerAdmin, registerUser, tokenFromMail } from '../auth/auth-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { type SseClient, openSse } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

let t: RealtimeTestApp;
let sse: SseClient | undefined;

beforeAll(async () => {
  t = await createRealtimeTestApp(true);
});
afterEach(() => {
  sse?.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(() => t.close());

interface Delivered {
  text: string;
  event: { type: string; docId: string; updatedFields?: string[]; doc?: Record<string, unknown> };
}

let markers = 0;

/**
 * Every event about `user` after subscribing, up to a marker write made through the driver: the change
 * stream delivers in order, so by the marker's event every echo of the writes before it has come (or been
 * dropped as an echo).
 */
async function eventsUpToMarker(client: SseClient, user: Registered): Promise<Delivered[]> {
  const marker = `marker-${++markers}`;
  await t.connection.collection('users').updateOne({ _id: new Types.ObjectId(user.id) }, { $set: { bio: marker, updatedAt: new Date() } });
  const parse = (data: string): Delivered => ({ text: data, event: JSON.parse(data) as Delivered['event'] });
  await client.next((e) => parse(e.data).event.doc?.bio === marker);
  return client.events.items.map((e) => parse(e.data)).filter(({ event }) => event.docId === user.id && event.doc?.bio !== marker);
}

/** An admin's SSE subscription to users, open when this resolves. */
async function subscribe(): Promise<SseClient> {
  const [name, value] = bearer((await registerAdmin(t)).accessToken);
  const client = await openSse(t.server, '/api/sse?collections=users', { [name]: value });
  expect(client.status).toBe(200);
  return client;
}

/** No hidden field's name, no hash, none of the given secrets. */
function expectNothingHidden(text: string, secrets: string[]): void {
  for (const name of ['password', 'resetToken', 'resetExpiry', 'verificationToken', 'verificationExpiry']) expect(text).not.toContain(name);
  expect(text).not.toContain('scrypt$');
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describeIf(capabilities().changeStreams, 'the marker that shows every echo has come is a change stream event')('auth flows as realtime events', () => {
  it('forgot-password then reset-password: two updates naming no field, without the token or the hash', async () => {
    const user = await registerUser(t);
    sse = await subscribe();
    await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    await request(t.app).post('/api/users/reset-password').send({ token, password: 'N3w-Secret-Phrase!' }).expect(200);
    const events = await eventsUpToMarker(sse, user);
    expect(events.map(({ event }) => [event.type, event.updatedFields])).toEqual([['update', []], ['update', []]]);
    for (const { text } of events) expectNothingHidden(text, [token, hashToken(token)]);
  });

  it('change-password: one update naming no field', async () => {
    const user = await registerUser(t);
    sse = await subscribe();
    await request(t.app).post('/api/users/change-password').set(...bearer(user.accessToken)).send({ currentPassword: user.password, password: 'An0ther-Secret!' }).expect(200);
    const events = await eventsUpToMarker(sse, user);
    expect(events.map(({ event }) => [event.type, event.updatedFields])).toEqual([['update', []]]);
    for (const { text } of events) expectNothingHidden(text, []);
  });

  it('send-verification then verify-email: an update naming no field, then one naming verified', async () => {
    const user = await registerUser(t);
    sse = await subscribe();
    await request(t.app).post('/api/users/send-verification').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Verify/);
    await request(t.app).post('/api/users/verify-email').send({ token }).expect(200);
    const events = await eventsUpToMarker(sse, user);
    expect(events.map(({ event }) => [event.type, event.updatedFields])).toEqual([['update', []], ['update', ['verified']]]);
    expect(events[1].event.doc).toMatchObject({ verified: true });
    for (const { text } of events) expectNothingHidden(text, [token, hashToken(token)]);
  });

  it('a login that upgrades the hash: one update naming no field', async () => {
    const user = await registerUser(t);
    // An old hash written behind the router: its own event is let pass (seen by a first subscriber) before
    // the subscriber under test opens, so only the login's write can reach it.
    const earlier = await subscribe();
    await t.connection.collection('users').updateOne({ email: user.email }, { $set: { password: await hashPassword(user.password, { ...FAST_HASH, cost: 2048 }) } });
    await earlier.next((e) => (JSON.parse(e.data) as Delivered['event']).docId === user.id);
    earlier.close();
    sse = await subscribe();
    await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }).expect(200);
    const events = await eventsUpToMarker(sse, user);
    expect(events.map(({ event }) => [event.type, event.updatedFields])).toEqual([['update', []]]);
    for (const { text } of events) expectNothingHidden(text, []);
  });
});
