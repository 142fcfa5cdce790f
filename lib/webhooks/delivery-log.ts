// The delivery log as the API shows it, for the routes and for api.webhooks alike: a page of deliveries
// (newest first, filtered by status and endpoint) and "queue this one again".
import type { QueryOptions } from '../config/resolve-config';
import { DeliveryNotRetryableError, NotFoundError } from '../errors';
import { toListEnvelope } from '../http/list-envelope';
import type { FindResult } from '../operations/find-result';
import { chooseEnvelope, parseLimit, parsePage } from '../query';
import { readSingleParam } from '../query/read-param';
import { rejectQuery } from '../query/reject';
import type { EnvelopeKind } from '../query/types';
import type { ApiRecord } from '../schema/to-record';
import { toIsoString } from '../util/iso-date';
import type { DeliveryQueue } from './delivery-queue';
import { DELIVERY_STATUSES, type DeliveryFilter, type DeliveryRow, type DeliveryStatus, type DeliveryStore } from './delivery-store';

/** One attempt of a delivery. */
export interface WebhookAttempt {
  at: string;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why it failed, when it did. */
  error?: string;
  durationMs: number;
  /** The start of the receiver's answer (at most 4 KiB). */
  response?: string;
}

/** One delivery of one change to one endpoint. */
export interface WebhookDelivery {
  /** Also its `webhook-id`, the same on every attempt. */
  id: string;
  /** The endpoint's URL. */
  endpoint: string;
  /** `<collection>.create`, `.update` or `.delete`. */
  type: string;
  recordId: string;
  collection: string;
  status: DeliveryStatus;
  attempts: WebhookAttempt[];
  /** When the next attempt is due (pending deliveries only). */
  nextAttemptAt?: string;
  createdAt: string;
}

export interface WebhookDeliveryQuery {
  status?: DeliveryStatus;
  /** An endpoint's URL. */
  endpoint?: string;
  /** 1-based. Default 1. */
  page?: number;
  /** Default 10, at most 100. */
  limit?: number;
}

/** A page of the log, in the default list envelope. */
export interface WebhookDeliveryPage {
  data: WebhookDelivery[];
  meta: { total: number; page: number; perPage: number; totalPages: number };
}

/** What api.webhooks offers server code. */
export interface WebhooksApi {
  /** Deliveries, newest first. */
  list(query?: WebhookDeliveryQuery): Promise<WebhookDeliveryPage>;
  /**
   * Sends a failed (or delivered) delivery again, same webhook-id, one attempt; a pending one is left as it is.
   * Rejects with NotFoundError for an unknown id, and with DeliveryNotRetryableError for a delivery whose body
   * could not be built (a read hook failed).
   */
  retry(id: string): Promise<WebhookDelivery>;
}

/** Page sizes of the log. */
export const LOG_PAGINATION = Object.freeze({ defaultLimit: 10, maxLimit: 100 });
/** The parameters the log takes; any other is a 400 naming it. */
const PARAMETERS = ['status', 'endpoint', 'page', 'limit', 'perPage'];

/** A read of the log, checked: filter, page, size and the envelope the request's dialect asks for. */
export interface DeliveryRead {
  filter: DeliveryFilter;
  page: number;
  limit: number;
  envelope: EnvelopeKind;
}

/** Reads the log's query (a URL's, or api.webhooks.list's); a 400 QueryError names a bad parameter. */
export function parseDeliveryQuery(raw: Record<string, unknown>, options: QueryOptions): DeliveryRead {
  for (const name of Object.keys(raw)) {
    if (name === 'cursor') rejectQuery(name, 'the delivery log pages by page and limit (or perPage), not by cursor', 'unknown_parameter');
    if (!PARAMETERS.includes(name) && raw[name] !== undefined) rejectQuery(name, `unknown parameter (the delivery log takes ${PARAMETERS.join(', ')})`, 'unknown_parameter');
  }
  const status = readSingleParam(raw, 'status', 'invalid_value');
  if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
    rejectQuery('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`, 'invalid_value');
  }
  const endpoint = readSingleParam(raw, 'endpoint', 'invalid_value');
  if (endpoint !== undefined && (typeof endpoint !== 'string' || endpoint === '')) rejectQuery('endpoint', "must be an endpoint's URL", 'invalid_value');
  return {
    filter: { ...(status ? { status: status as DeliveryStatus } : {}), ...(endpoint ? { endpoint } : {}) },
    page: parsePage(raw),
    limit: parseLimit(raw, { pagination: LOG_PAGINATION }, options),
    envelope: chooseEnvelope(raw, options),
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row._id,
    endpoint: row.endpoint,
    type: row.type,
    recordId: row.recordId,
    collection: row.collection,
    status: row.status,
    attempts: row.attempts.map((a) => ({
      at: toIsoString(a.at),
      ...(a.status === undefined ? {} : { status: a.status }),
      ...(a.error === undefined ? {} : { error: a.error }),
      durationMs: a.durationMs,
      ...(a.response === undefined ? {} : { response: a.response }),
    })),
    ...(row.status === 'pending' ? { nextAttemptAt: toIsoString(row.nextAttemptAt) } : {}),
    createdAt: toIsoString(row.createdAt),
  };
}

/** The log's reads and retries over a store, for the routes and for api.webhooks. */
export interface DeliveryLog {
  /** A page of deliveries in the envelope `read` asks for. */
  read(read: DeliveryRead): Promise<Record<string, unknown>>;
  retry(id: string): Promise<WebhookDelivery>;
}

/** The log over a store; `delays` is the retry schedule (a manual retry is its last try: one attempt). */
export function createDeliveryLog(store: DeliveryStore, queue: DeliveryQueue, delays: readonly number[]): DeliveryLog {
  return {
    async read({ filter, page, limit, envelope }) {
      const { rows, total } = await store.list(filter, page, limit);
      const totalPages = Math.ceil(total / limit);
      // Deliveries are not records, but they take the records' envelopes.
      const result: FindResult = { docs: rows.map(toDelivery) as unknown as ApiRecord[], page, limit, total, totalPages, hasNextPage: page < totalPages, hasPrevPage: page > 1 };
      return toListEnvelope(result, envelope);
    },
    async retry(id) {
      const found = await store.requeue(id, delays.length);
      if (!found) throw new NotFoundError('No such webhook delivery (it may have expired).');
      const { row, requeued } = found;
      // A pending delivery is queued already: it is answered as it is. Any other that was not queued has no body.
      if (!requeued && row.status !== 'pending') {
        throw new DeliveryNotRetryableError('This delivery cannot be sent again: its body could not be built (a read hook failed, see its attempt). Later changes of the record are delivered as usual.');
      }
      if (requeued) queue.wake();
      return toDelivery(row);
    },
  };
}

/** api.webhooks: the log for server code, in the default envelope. */
export function createWebhooksApi(log: DeliveryLog, options: QueryOptions): WebhooksApi {
  return {
    async list(query = {}) {
      const read = parseDeliveryQuery({ ...query }, options);
      // (The cast: the 'data' envelope of deliveries is this shape; read() is typed for every envelope of records.)
      return (await log.read({ ...read, envelope: 'data' })) as unknown as WebhookDeliveryPage;
    },
    retry: (id) => log.retry(id),
  };
}
