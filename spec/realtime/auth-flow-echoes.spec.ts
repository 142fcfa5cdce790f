// Auth's own writes (change-password, reset-password, verify-email) reach realtime subscribers once: the
// router publishes each with the stored record, so the change stream's echo of the same write is
// recognised and dropped like any other write of this router's.
import request from 'supertest';
import { bearer, registerAdmin, registerUser } from '../auth/auth-test-app';
import { quietFor } from '../helpers/eventually';
import { capabilities, describeIf } from '../helpers/test-db';
import { type SseClient, openSse } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

/** Long enough for the change stream's echo of a write to arrive (it comes within milliseconds here). */
const ECHO_WAIT_MS = 1500;

let t: RealtimeTestApp;
let sse: SseClient | undefined;

beforeAll(async () => {
  t = await createRealtimeTestApp(true);
});
afterEach(() => sse?.close());
afterAll(() => t.close());

/** The update events about `id` whose record carries `updatedAt`: one write's deliveries. */
function deliveriesOf(client: SseClient, id: string, updatedAt: string): unknown[] {
  return client.events.items
    .map((e) => JSON.parse(e.data) as { type: string; docId: string; doc?: { updatedAt?: string } })
    .filter((event) => event.type === 'update' && event.docId === id && event.doc?.updatedAt === updatedAt);
}

describeIf(capabilities().changeStreams, 'the server has no change streams, so no echo could duplicate an event')('auth writes and their echoes', () => {
  it('delivers a password change once, not once more for its echo', async () => {
    const user = await registerUser(t);
    const [name, value] = bearer((await registerAdmin(t)).accessToken);
    sse = await openSse(t.server, '/api/sse?collections=users', { [name]: value });
    expect(sse.status).toBe(200);

    await request(t.app)
      .post('/api/users/change-password')
      .set(...bearer(user.accessToken))
      .send({ currentPassword: user.password, password: 'An0ther-Secret!' })
      .expect(200);
    const stored = await t.connection.collection('users').findOne({ email: user.email });
    const updatedAt = (stored!.updatedAt as Date).toISOString();

    await sse.next((e) => (JSON.parse(e.data) as { docId?: string }).docId === user.id && deliveriesOf(sse!, user.id, updatedAt).length > 0);
    await quietFor(ECHO_WAIT_MS); // no second delivery may come
    expect(deliveriesOf(sse, user.id, updatedAt)).toHaveLength(1);
  });
});
