// After a manual retry of a failed delivery fails again, the "failed for good" warning counts every attempt
// the delivery has had, not the attempts of the retry schedule (which would say 1 where the log shows 2).
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { type Receiver, startReceiver } from './receivers';
import { until } from '../helpers/eventually';

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('a manual retry that fails again', () => {
  let t: TestApp;
  let down: Receiver;
  const warnings: string[] = [];

  beforeAll(async () => {
    down = await startReceiver((_req, res) => res.writeHead(503).end('down'));
    const logger = { error: () => undefined, info: () => undefined, warn: (...args: unknown[]) => void warnings.push(args.map(String).join(' ')) };
    t = await createTestApp({
      logger,
      collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }],
      webhooks: { endpoints: [{ url: down.url, secret: down.secret, events: ['posts.create'] }], retry: { delays: [] }, retention: '1h' },
    });
  });

  afterAll(async () => {
    await t?.close();
    await down?.close();
  });

  it('is logged with the number of attempts the delivery really had', async () => {
    await t.api.local.create('posts', { title: 'x' });
    const [failed] = await until(async () => {
      const { data } = await t.api.webhooks!.list({ status: 'failed' });
      return data.length ? data : undefined;
    });
    expect(warnings.filter((w) => w.includes(failed.id))).toEqual([expect.stringContaining('failed for good after 1 attempts')]);
    await t.api.webhooks!.retry(failed.id);
    await until(async () => {
      const { data } = await t.api.webhooks!.list({ status: 'failed' });
      return data[0]?.attempts.length === 2 || undefined;
    });
    await until(() => warnings.filter((w) => w.includes(failed.id)).length === 2 || undefined);
    expect(warnings.filter((w) => w.includes(failed.id))[1]).toContain('failed for good after 2 attempts');
  });
});
