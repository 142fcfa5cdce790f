// The delivery queue against a stand-in store (no database): polling goes on whatever wakes it, also when a
// wake comes while a poll is running; retry delays vary within 20 % either way.
import type { DeliveryStore } from '../../lib/webhooks/delivery-store';
import { POLL_MS, createDeliveryQueue, jittered } from '../../lib/webhooks/delivery-queue';
import type { ResolvedWebhooks } from '../../lib/webhooks/webhook-options';
import { until } from '../helpers/eventually';
import { systemClock } from '../../lib/util/clock';

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

describe('the delivery queue', () => {
  it('keeps polling when woken while a poll runs', async () => {
    let claims = 0;
    let release: () => void = () => undefined;
    const store = {
      owner: 'me',
      // The first claim hangs until released: the wake below comes while it runs.
      claim: () => {
        claims += 1;
        return claims === 1 ? new Promise((resolve) => (release = () => resolve([]))) : Promise.resolve([]);
      },
      renew: async () => undefined,
      release: async () => undefined,
      settle: async () => 0,
      nextDue: async () => undefined,
    } as unknown as DeliveryStore;
    const options = { endpoints: [{ url: 'http://127.0.0.1:1/x' }], delays: [], timeoutMs: 1000, retentionMs: 60_000, slugs: new Set() } as unknown as ResolvedWebhooks;
    const queue = createDeliveryQueue(store, options, silent, systemClock);
    queue.start();
    await until(() => claims === 1, 1000);
    queue.wake();
    // The wake's timer fires while the first poll still runs.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    // The wake's poll right after the first, then the regular ones.
    await until(() => claims >= 2, 1000);
    await until(() => claims >= 4, 3 * POLL_MS + 1000);
    await queue.close();
  });

  it('varies each retry delay by at most 20 % either way', () => {
    expect(jittered(10_000, () => 0)).toBe(8000);
    expect(jittered(10_000, () => 1)).toBe(12_000);
    expect(jittered(10_000, () => 0.5)).toBe(10_000);
  });
});
