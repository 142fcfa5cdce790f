// A read hook that throws while a delivery's body is built fails that delivery, not the collection's stream:
// the delivery is recorded as failed with an attempt naming the hook (nothing is sent), and the changes after
// it are delivered as usual. Such a delivery cannot be sent again: it has no body.
import { mongo } from 'mongoose';
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { type Receiver, startReceiver } from './receivers';
import { until } from '../helpers/eventually';

const admin = asUser({ id: 'a1', role: 'admin' });

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('a read hook that fails on a delivery', () => {
  let t: TestApp;
  let receiver: Receiver;
  const errors: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    const explode = ({ doc }: { doc?: Record<string, unknown> }) => {
      if (doc?.title === 'explodes') throw new Error('cannot show this one');
    };
    t = await createTestApp({
      logger: { error: (...args: unknown[]) => void errors.push(args.map(String).join(' ')), warn: () => undefined, info: () => undefined },
      collections: [{ slug: 'posts', fields: { title: { type: 'text' } }, hooks: { afterRead: [explode] } }],
      webhooks: { endpoints: [{ url: receiver.url, secret: receiver.secret, events: ['posts.*'] }] },
    });
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: { id: string } });

  it('records a failed delivery naming the hook, and delivers the changes after it', async () => {
    // Written past the router: its own answer would run the hook too.
    const { insertedId } = await t.connection.db!.collection('posts').insertOne({ title: 'explodes', createdAt: new Date(), updatedAt: new Date() });
    const id = insertedId.toHexString();
    const later = await t.api.local.create('posts', { title: 'fine' });
    await until(() => bodies().some((b) => b.data.id === later.id));
    expect(bodies().filter((b) => b.data.id === id)).toEqual([]);

    const { body } = await request(t.app).get('/api/webhooks/deliveries').query({ status: 'failed' }).set(...admin).expect(200);
    expect(body.data).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        endpoint: receiver.url,
        type: 'posts.create',
        recordId: id,
        collection: 'posts',
        status: 'failed',
        attempts: [{ at: expect.any(String), error: expect.stringContaining('"posts" hooks.afterRead[0] (explode) hook failed: cannot show this one'), durationMs: 0 }],
        createdAt: expect.any(String),
      },
    ]);
    expect(errors.some((line) => line.includes('hooks.afterRead[0] (explode)'))).toBe(true);

    // No body to send again: the retry says so.
    const retry = await request(t.app).post(`/api/webhooks/deliveries/${body.data[0].id}/retry`).set(...admin).expect(409);
    expect(retry.body).toMatchObject({ code: 'delivery_not_retryable', detail: expect.stringContaining('could not be built') });
  });

  it('a later change of the same record is delivered once the hook lets it through', async () => {
    const { insertedId } = await t.connection.db!.collection('posts').insertOne({ title: 'explodes', createdAt: new Date(), updatedAt: new Date() });
    await t.connection.db!.collection('posts').updateOne({ _id: insertedId }, { $set: { title: 'mended' } });
    const update = await until(() => bodies().find((b) => b.data.id === insertedId.toHexString() && b.type === 'posts.update'));
    expect(update).toMatchObject({ data: { doc: { title: 'mended' } } });
    expect(mongo.ObjectId.isValid(update.data.id)).toBe(true);
  });
});
