// Realtime as a feature: the hub fed from the change bus, GET /sse, and /ws (declared in the route table
// for plain GETs, served on upgrade once the host calls api.attach(server)).
import type { Feature } from '../http/feature';
import { createEventHub } from './event-hub';
import { connectHub } from './hub-feed';
import type { RealtimeClient } from './realtime-client';
import type { HubEntry } from './realtime-event';
import { resolveRealtimeOptions, validateRealtimeConfig } from './realtime-options';
import { createSseTransport } from './sse-transport';
import { createWsTransport } from './ws-transport';

/** What api.realtime offers the host (monitoring). */
export interface RealtimeApi {
  /** Open connections by transport. */
  stats(): { sse: number; ws: number };
}

/** The WebSocket path: the configured mount prefix (core.api.prefix, default /api) plus /ws. */
export function websocketPath(prefix: string): string {
  return `${prefix.replace(/\/+$/, '')}/ws`;
}

/** `realtime: true | { ... }`: events over Server-Sent Events and WebSocket. */
export const realtimeFeature: Feature = {
  name: 'realtime',
  validate: validateRealtimeConfig,
  create(runtime) {
    const options = resolveRealtimeOptions(runtime.config.source.realtime);
    if (!options) return undefined;
    const { logger } = runtime.config;
    const hub = createEventHub<HubEntry>(options.replayEvents, (error) => logger.error('content-router: a realtime client failed:', error));
    const clients = new Set<RealtimeClient>();
    const disconnect = connectHub(runtime, hub, clients);
    const sse = createSseTransport({ runtime, hub, options, clients });
    const ws = createWsTransport({ runtime, hub, options, clients, path: websocketPath(runtime.config.prefix) });
    const api: RealtimeApi = { stats: () => ({ sse: sse.size, ws: ws.size }) };
    return {
      routes: [sse.route, ws.route],
      attach: (server) => ws.attach(server),
      expose: { realtime: api },
      close() {
        disconnect();
        sse.close();
        ws.close();
        hub.close();
      },
    };
  },
};
