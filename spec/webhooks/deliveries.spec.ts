// Webhooks end to end against real HTTP receivers: what a receiver verifying with the standardwebhooks package
// gets (headers, signature, body, no hidden field), and what happens when a receiver fails: a flaky one is
// retried with the same webhook-id until it answers, a dead one and a redirecting one end `failed` after
// the retries, and a hanging one never holds another endpoint's deliveries.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { capabilities, describeIf, itIf } from '../helpers/test-db';
import { type Received, type Receiver, deadUrl, flaky, hang, ok, redirect, startReceiver } from './receivers';
import { until } from '../helpers/eventually';

const admin = asUser({ id: 'a1', role: 'admin' });
const writer = asUser({ id: 'w1' });

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('webhook deliveries', () => {
  let app: TestApp;
  let good: Receiver;
  let flakyReceiver: Receiver;
  let hanging: Receiver;
  let redirecting: Receiver;
  let dead: string;

  beforeAll(async () => {
    good = await startReceiver(ok);
    flakyReceiver = await startReceiver(flaky(2));
    hanging = await startReceiver(hang);
    redirecting = await startReceiver(redirect(good.url));
    dead = await deadUrl();
    app = await createTestApp({
      collections: [{ slug: 'posts', fields: { title: { type: 'text' }, status: { type: 'text' }, secret: { type: 'text', hidden: true } } }],
      webhooks: {
        endpoints: [
          { url: good.url, secret: good.secret, events: ['posts.*'], headers: { authorization: 'Bearer gateway' } },
          { url: flakyReceiver.url, secret: flakyReceiver.secret, events: ['posts.create'], where: { title: { like: 'flaky%' } } },
          { url: dead, secret: good.secret, events: ['posts.create'], where: { title: { like: 'dead%' } } },
          { url: hanging.url, secret: hanging.secret, events: ['posts.create'], where: { title: { like: 'hang%' } } },
          { url: redirecting.url, secret: redirecting.secret, events: ['posts.create'], where: { title: { like: 'redirect%' } } },
        ],
        retry: { delays: [50, 50] },
        timeoutMs: 3000,
      },
    });
  });

  afterAll(async () => {
    await app?.close();
    await Promise.all([good, flakyReceiver, hanging, redirecting].map((r) => r?.close()));
  });

  const create = async (data: Record<string, unknown>) => (await request(app.app).post('/api/posts').set(...writer).send(data).expect(201)).body as { id: string };
  const deliveriesOf = async (recordId: string) => (await app.api.webhooks!.list({ limit: 100 })).data.filter((d) => d.recordId === recordId);
  const typeOf = (r: Received) => (r.verified.ok ? r.verified.payload.type : undefined);
  const receivedFor = (receiver: Receiver, id: string) => receiver.received.filter((r) => r.verified.ok && (r.verified.payload.data as { id: string }).id === id);

  it('POSTs a create signed as Standard Webhooks says, verified by the standardwebhooks package', async () => {
    // The local API may write a hidden field; no delivery may carry it.
    const post = await app.api.local.create('posts', { title: 'hello', status: 'draft', secret: 'never sent' });
    const [got] = await until(() => (receivedFor(good, post.id).length ? receivedFor(good, post.id) : undefined));
    expect(got.verified).toEqual({ ok: true, payload: expect.any(Object) });
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(Number(got.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(got.headers.authorization).toBe('Bearer gateway');
    const { body: stored } = await request(app.app).get(`/api/posts/${post.id}`).set(...writer).expect(200);
    expect(JSON.parse(got.body)).toEqual({ type: 'posts.create', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), data: { id: post.id, collection: 'posts', doc: stored } });
    expect(got.body).not.toContain('never sent');
    expect(got.body).not.toContain('_rev');
    // Recorded as delivered, with its one attempt.
    const [delivery] = await until(async () => {
      const found = (await deliveriesOf(post.id)).filter((d) => d.endpoint === good.url && d.status === 'delivered');
      return found.length ? found : undefined;
    });
    expect(delivery).toEqual({
      id: got.headers['webhook-id'],
      endpoint: good.url,
      type: 'posts.create',
      recordId: post.id,
      collection: 'posts',
      status: 'delivered',
      attempts: [{ at: expect.any(String), status: 200, durationMs: expect.any(Number), response: 'thanks' }],
      createdAt: expect.any(String),
    });
  });

  it('a write made past the router (the driver) is delivered too: an update with the record after it, a delete without one', async () => {
    const post = await app.api.local.create('posts', { title: 'driver', status: 'draft', secret: 's1' });
    const posts = app.connection.db!.collection('posts');
    const { ObjectId } = (await import('mongoose')).mongo;
    await posts.updateOne({ _id: new ObjectId(post.id) }, { $set: { status: 'published', secret: 's2' } });
    const update = await until(() => receivedFor(good, post.id).find((r) => typeOf(r) === 'posts.update'));
    const payload = JSON.parse(update.body);
    expect(payload.data).toMatchObject({ id: post.id, collection: 'posts', doc: { id: post.id, title: 'driver', status: 'published' } });
    expect(payload.data.doc).not.toHaveProperty('secret');
    // MongoDB describes the update (plain mongo-java-server does not): only visible fields are named.
    if (payload.data.updatedFields) expect(payload.data.updatedFields).toEqual(['status']);
    await posts.deleteOne({ _id: new ObjectId(post.id) });
    const removal = await until(() => receivedFor(good, post.id).find((r) => typeOf(r) === 'posts.delete'));
    expect(JSON.parse(removal.body)).toEqual({ type: 'posts.delete', timestamp: expect.any(String), data: { id: post.id, collection: 'posts' } });
  });

  itIf(capabilities().findAndModifyEvents, 'the server does not report findOneAndUpdate/findOneAndDelete on change streams')(
    'PATCH delivers an update naming the fields it set (never a hidden one); DELETE a delete without doc',
    async () => {
      const post = await create({ title: 'patched', status: 'draft' });
      await request(app.app).patch(`/api/posts/${post.id}`).set(...writer).send({ status: 'live' }).expect(200);
      const update = await until(() => receivedFor(good, post.id).find((r) => typeOf(r) === 'posts.update'));
      expect(JSON.parse(update.body).data).toMatchObject({ doc: { status: 'live' }, updatedFields: expect.arrayContaining(['status', 'updatedAt']) });
      // A client may not write a hidden field (400); the local API may, and no delivery names it.
      await app.api.local.update('posts', post.id, { status: 'later', secret: 'x' });
      const hiddenToo = await until(() => receivedFor(good, post.id).find((r) => typeOf(r) === 'posts.update' && JSON.parse(r.body).data.doc.status === 'later'));
      expect(JSON.parse(hiddenToo.body).data.updatedFields).toEqual(expect.arrayContaining(['status', 'updatedAt']));
      expect(JSON.parse(hiddenToo.body).data.updatedFields).not.toContain('secret');
      expect(hiddenToo.body).not.toContain('"x"');
      await request(app.app).delete(`/api/posts/${post.id}`).set(...writer).expect(200);
      const removal = await until(() => receivedFor(good, post.id).find((r) => typeOf(r) === 'posts.delete'));
      expect(JSON.parse(removal.body).data).toEqual({ id: post.id, collection: 'posts' });
    },
  );

  itIf(capabilities().findAndModifyEvents, 'the server does not report findOneAndUpdate on change streams')('a bulk PATCH by where delivers one update per record', async () => {
    const a = await create({ title: 'bulk a', status: 'bulk' });
    const b = await create({ title: 'bulk b', status: 'bulk' });
    await request(app.app).patch('/api/posts').set(...writer).query({ where: JSON.stringify({ status: { eq: 'bulk' } }) }).send({ status: 'done' }).expect(200);
    for (const post of [a, b]) {
      await until(() => receivedFor(good, post.id).find((r) => typeOf(r) === 'posts.update'));
    }
    const updates = [a, b].flatMap((post) => receivedFor(good, post.id)).filter((r) => JSON.parse(r.body).type === 'posts.update');
    expect(updates).toHaveLength(2);
  });

  it('retries a flaky receiver with the same webhook-id until it answers 2xx, and logs every attempt', async () => {
    const post = await create({ title: 'flaky one' });
    const delivery = await until(async () => (await deliveriesOf(post.id)).find((d) => d.endpoint === flakyReceiver.url && d.status === 'delivered'));
    const requests = flakyReceiver.byId(delivery.id);
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.verified.ok && r.body === requests[0].body)).toBe(true);
    expect(delivery.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(delivery.attempts[0]).toMatchObject({ error: 'answered 500, not 2xx', response: 'not yet' });
    // Only the endpoint whose where matched got it.
    expect(receivedFor(hanging, post.id)).toHaveLength(0);
  });

  it('a dead receiver (connection refused) is retried, then the delivery is failed', async () => {
    const post = await create({ title: 'dead letter' });
    const delivery = await until(async () => (await deliveriesOf(post.id)).find((d) => d.endpoint === dead && d.status === 'failed'));
    expect(delivery.attempts).toHaveLength(3);
    for (const attempt of delivery.attempts) {
      expect(attempt).toEqual({ at: expect.any(String), error: expect.stringMatching(/^connection error \(ECONNREFUSED\)/), durationMs: expect.any(Number) });
    }
    const { body } = await request(app.app).get('/api/webhooks/deliveries').query({ status: 'failed', endpoint: dead }).set(...admin).expect(200);
    expect(body.data.map((d: { id: string }) => d.id)).toContain(delivery.id);
  });

  it('a redirect is not followed: it is a failed attempt', async () => {
    const post = await create({ title: 'redirect me' });
    const delivery = await until(async () => (await deliveriesOf(post.id)).find((d) => d.endpoint === redirecting.url && d.status === 'failed'));
    expect(delivery.attempts.map((a) => [a.status, a.error])).toEqual(Array(3).fill([302, `redirect (302 to ${good.url}) not followed`]));
    // The redirect's target never saw it.
    expect(good.byId(delivery.id)).toHaveLength(0);
  });

  it('a hanging receiver does not delay another endpoint', async () => {
    const stuck = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => create({ title: `hang ${n}` })));
    await until(() => hanging.received.length >= 4);
    const post = await create({ title: 'meanwhile' });
    await until(() => receivedFor(good, post.id).length === 1);
    // Still hanging: none of the stuck deliveries has an attempt settled yet.
    const pending = (await Promise.all(stuck.map((p) => deliveriesOf(p.id)))).flat().filter((d) => d.endpoint === hanging.url);
    expect(pending.every((d) => d.status === 'pending' && d.attempts.length === 0)).toBe(true);
  });
});
