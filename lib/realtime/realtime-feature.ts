// Realtime as a feature: the hub fed from the change bus, GET /sse, and /ws (a route whose upgrades the
// router serves once the host calls api.attach(server)), with one connection cap per client over both and
// one timer for the clients' periodic credential re-checks.
import type { Feature } from '../http/feature';
import { createConnectionLimit } from './connection-limit';
import { createEventHub } from './event-hub';
import { connectHub } from './hub-feed';
import { createRuleBook } from './read-matcher';
import type { RealtimeClient } from './realtime-client';
import type { HubEntry } from './realtime-event';
import { type ResolvedRealtimeOptions, parseRealtimeOptions } from './realtime-options';
import { createSseTransport } from './sse-transport';
import { createWsTransport } from './ws-transport';
import { nowMs } from '../util/clock';

/** What api.realtime offers the host (monitoring). */
export interface RealtimeApi {
  /** Open connections by transport. */
  stats(): { sse: number; ws: number };
}

declare module '../http/feature' {
  interface RouterMembers {
    /** Realtime monitoring (docs/realtime.md); present only when `realtime` is enabled. */
    realtime?: RealtimeApi;
  }
}

/** `realtime: true | { ... }`: events over Server-Sent Events and WebSocket. */
export const realtimeFeature: Feature<ResolvedRealtimeOptions | undefined> = {
  name: 'realtime',
  options: parseRealtimeOptions,
  create(runtime, lifecycle, options) {
    if (!options) return undefined;
    const { logger } = runtime.config;
    const hub = createEventHub<HubEntry>(options.replayEvents, (error) => logger.error('content-router: a realtime client failed:', error));
    const clients = new Set<RealtimeClient>();
    const disconnect = connectHub(runtime, hub, clients);
    const limit = createConnectionLimit(options.maxConnectionsPerClient);
    // Readers whose rules answer alike share one compiled rule, whichever transport they came by.
    const rules = createRuleBook();
    const sse = createSseTransport({ runtime, hub, options, rules, clients, limit });
    const ws = createWsTransport({ runtime, hub, options, rules, clients, limit });
    // One timer asks every client whether its periodic re-check is due: a timer per client would cost each
    // connection a Timeout. A quarter of the interval (at most a second) bounds how late a check can come.
    // Due by the router's clock; the timer that asks is Node's.
    const rechecks = setInterval(() => {
      const now = nowMs(runtime.config.clock);
      for (const client of clients) client.recheckIfDue(now);
    }, Math.min(1000, Math.max(1, Math.floor(options.credentialCheckMs / 4))));
    rechecks.unref();
    const api: RealtimeApi = { stats: () => ({ sse: sse.size, ws: ws.size }) };
    lifecycle.onClose.push(() => {
      clearInterval(rechecks);
      disconnect();
      sse.close();
      ws.close();
      hub.close();
    });
    // A reader told of an update must be told whether it could read the record before: without the record
    // as it was, a reader who never could would be told it left its view (and learn that it exists).
    return { routes: [sse.route, ws.route], hooks: { priorState: [() => true] }, expose: { realtime: api } };
  },
};
