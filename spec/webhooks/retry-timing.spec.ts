// A failed attempt's retry comes when its delay is up, not at the next regular poll: the queue wakes at the
// earliest due attempt. Several retries of one endpoint that fail together fall due a few ms apart (their
// jitter), and each is attempted when due, not only the first of them. Read from the attempts the delivery
// log recorded, not from a clock in the test.
import type { ServerResponse } from 'node:http';
import { POLL_MS } from '../../lib/webhooks/delivery-queue';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { type Answer, type Receiver, ok, startReceiver } from './receivers';
import { until } from '../helpers/eventually';

const DELAY_MS = 200;
const RECORDS = 5;

/** Holds each delivery's first attempt until all RECORDS have come, then fails them all at once (500); later attempts get 200. */
function failTogether(): Answer {
  const seen = new Set<string>();
  const held: ServerResponse[] = [];
  return (req, res, count) => {
    if (seen.has(req.id)) return ok(req, res, count);
    seen.add(req.id);
    held.push(res);
    if (held.length === RECORDS) for (const waiting of held.splice(0)) waiting.writeHead(500).end('not yet');
  };
}

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('retry timing', () => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver(failTogether());
    t = await createTestApp({
      collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }],
      webhooks: { endpoints: [{ url: receiver.url, secret: receiver.secret, events: ['posts.create'] }], retry: { delays: [DELAY_MS] } },
    });
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('retries each failed attempt when its delay is up, well before the regular poll would have', async () => {
    const posts = await Promise.all(Array.from({ length: RECORDS }, (_, n) => t.api.local.create('posts', { title: `retry me ${n}` })));
    const ids = new Set(posts.map((p) => p.id));
    const deliveries = await until(async () => {
      const found = (await t.api.webhooks!.list({ limit: 100 })).data.filter((d) => ids.has(d.recordId) && d.status === 'delivered');
      return found.length === RECORDS ? found : undefined;
    }, 20_000);
    for (const { attempts: [first, retry] } of deliveries) {
      expect([first.status, retry.status]).toEqual([500, 200]);
      const end = Date.parse(first.at) + first.durationMs;
      const wait = Date.parse(retry.at) - end;
      // Never before the delay allows (at most 20 % jitter, counted from the attempt's start).
      expect(wait + first.durationMs).toBeGreaterThanOrEqual(DELAY_MS * 0.8);
      // A retry left for the regular poll waits POLL_MS past its due time; one woken when due waits its delay
      // and the database's round trips to record and claim it (a busy machine's share included).
      expect(wait).toBeLessThan(POLL_MS);
    }
  });
});
