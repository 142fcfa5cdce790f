// Webhooks as a feature (docs/webhooks.md): with `webhooks` configured, the changes of the collections its
// endpoints want are recorded as deliveries from the change stream and attempted per endpoint, with
// retries; the delivery log is served at /webhooks/deliveries and to server code as api.webhooks. Starts
// with api.ready, stops with api.close() (what was not sent is sent later, by this or another instance).
import type { Feature } from '../http/feature';
import { type WebhooksApi, createDeliveryLog, createWebhooksApi } from './delivery-log';
import { createDeliveryQueue } from './delivery-queue';
import { createDeliveryStore } from './delivery-store';
import { retryEvents } from './retry-event';
import { type ResolvedWebhooks, parseWebhooksOptions } from './webhook-options';
import { webhookRoutes } from './webhook-routes';
import { createWebhookSource } from './webhook-source';

export type { WebhooksApi };

declare module '../http/feature' {
  interface RouterMembers {
    /** The webhook delivery log for server code (docs/webhooks.md); present only when `webhooks` is configured. */
    webhooks?: WebhooksApi;
  }
}

export const webhooksFeature: Feature<ResolvedWebhooks | undefined> = {
  name: 'webhooks',
  options: parseWebhooksOptions,
  create(runtime, lifecycle, options) {
    if (!options) return undefined;
    const { logger } = runtime.config;
    const store = createDeliveryStore(runtime.connection, options.retentionMs, runtime.config.clock);
    const queue = createDeliveryQueue(store, options, logger, runtime.config.clock, retryEvents(runtime));
    const source = createWebhookSource(runtime, options, store, queue);
    const log = createDeliveryLog(store, queue, options.delays);
    lifecycle.onReady.push(async () => {
      // Without the unique index, two instances could each record a change: they would both deliver it.
      await store.createIndexes().catch((error: unknown) =>
        logger.error('content-router: could not create the webhook delivery indexes; with several instances a change may be delivered more than once:', error),
      );
      queue.start();
      await source.start();
    });
    // The stream first, so nothing new is queued while the queue closes.
    lifecycle.onClose.push(async () => {
      await source.close();
      await queue.close();
    });
    return { routes: webhookRoutes(runtime, log), expose: { webhooks: createWebhooksApi(log, runtime.config.query) } };
  },
};
