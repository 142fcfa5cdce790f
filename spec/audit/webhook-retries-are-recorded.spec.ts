// Every retry of a webhook delivery (each attempt after its first, scheduled or asked for on the delivery
// log) is one audit entry by the delivery flow, naming the delivery, never the endpoint's URL or the
// secret; the outcome is the receiver's status and whether the delivery will be tried again. A first
// attempt is no retry and is not recorded.
import type { AuditEntry } from '../../lib/audit/audit-entry';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { eventually, quietFor, until } from '../helpers/eventually';
import { capabilities, describeIf } from '../helpers/test-db';
import { type Receiver, flaky, startReceiver } from '../webhooks/receivers';

type Entry = Omit<AuditEntry, 'id'>;

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('webhook retries in the audit log', () => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    // Fails twice (500), then answers 200: a first attempt, a retry that fails, a retry that delivers.
    receiver = await startReceiver(flaky(2));
    t = await createTestApp({
      collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }],
      webhooks: { endpoints: [{ url: `${receiver.url}?token=secret-in-url`, secret: receiver.secret, events: ['posts.create'] }], retry: { delays: [50, 50] } },
      audit: { collections: [] },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const retries = async () =>
    (await t.connection.collection('content-router.audit').find({ action: 'webhook.retry' }, { projection: { _id: 0 } }).sort({ _id: 1 }).toArray()) as unknown as Entry[];

  it('records each retry once, by the delivery flow, naming the delivery and how it ended', async () => {
    await t.api.local.create('posts', { title: 'x' });
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- webhooks are configured
    const [delivery] = await until(async () => {
      const { data } = await t.api.webhooks!.list({ status: 'delivered' });
      return data.length ? data : undefined;
    });
    expect(delivery.attempts).toHaveLength(3);

    await eventually(async () => expect(await retries()).toHaveLength(2));
    await quietFor(150);
    const rows = await retries();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ actor: { type: 'system', name: 'webhooks.delivery' }, resource: { collection: 'content-router.webhook-deliveries', id: delivery.id }, request: { origin: 'local' } });
    }
    expect(rows.map((row) => row.outcome)).toEqual([{ status: 500, code: 'webhook_retry_scheduled' }, { status: 200 }]);
    const text = JSON.stringify(rows);
    for (const secret of [receiver.url, 'secret-in-url', receiver.secret]) expect(text).not.toContain(secret);
  });

  it('records a manual retry from the delivery log as a retry', async () => {
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- webhooks are configured
    const [delivered] = (await t.api.webhooks!.list({ status: 'delivered' })).data;
    await t.connection.collection('content-router.audit').deleteMany({});
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- webhooks are configured
    await t.api.webhooks!.retry(delivered.id);
    await eventually(async () => expect(await retries()).toHaveLength(1));
    await quietFor(150);
    expect(await retries()).toEqual([expect.objectContaining({ resource: { collection: 'content-router.webhook-deliveries', id: delivered.id }, outcome: { status: 200 } })]);
  });
});
