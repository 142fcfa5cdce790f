// Each retry of a webhook delivery (every attempt after its first: scheduled or asked for on the delivery
// log), told to the audit log as `webhook.retry` by the router's own delivery flow. The resource is the
// delivery (its webhook-id, in the delivery log), never the endpoint's URL, which may carry a secret in its
// path or query. The outcome: the receiver's status when it answered (504 when it did not in time, 502 when
// it could not be reached), and whether the delivery will be tried again or has failed for good.
import { emitAuditEvent } from '../operations/audit-events';
import type { Runtime } from '../operations/runtime';
import type { SystemActor } from '../config/types';
import { type AttemptRow, DELIVERIES_COLLECTION, type DeliveryRow, type Settlement } from './delivery-store';

/** The actor of every attempt: the delivery flow, not whoever made the change or asked for the retry. */
export const DELIVERY_ACTOR: SystemActor = { kind: 'system', name: 'webhooks.delivery' };

/** Told of an attempt of `row` that ended; `settlement`: how. */
export type AttemptListener = (row: DeliveryRow, settlement: Settlement) => void;

function statusOf(attempt: AttemptRow): number {
  if (attempt.status !== undefined) return attempt.status;
  return attempt.error?.startsWith('timeout') ? 504 : 502;
}

/** The listener that tells `runtime`'s audit log of retries; nothing is built without a listener. */
export function retryEvents(runtime: Pick<Runtime, 'hooks'>): AttemptListener {
  return (row, settlement) => {
    // The attempts before this one: none means it was the first, which is no retry.
    if (row.attempts.length === 0) return;
    emitAuditEvent(runtime, () => ({
      action: 'webhook.retry',
      actor: DELIVERY_ACTOR,
      resource: { collection: DELIVERIES_COLLECTION, id: row._id },
      outcome: {
        status: statusOf(settlement.attempt),
        ...(settlement.status === 'pending' && { code: 'webhook_retry_scheduled' }),
        ...(settlement.status === 'failed' && { code: 'webhook_failed' }),
      },
      origin: 'local',
    }));
  };
}
