// WebSocket at /ws on the `ws` package (noServer): the route's upgrade handler, which the router runs for
// upgrades of <prefix>/ws once the host calls api.attach(server), after the route's request phases.
import type { Duplex } from 'node:stream';
import type { Request } from 'express';
import { WebSocket, WebSocketServer } from 'ws';
import type { AuthUser } from '../config/types';
import { ContentError, ServiceUnavailableError, UpgradeRequiredError } from '../errors';
import type { RouteDef } from '../http/route-table';
import type { Runtime } from '../operations/runtime';
import { isRecord } from '../util/is-record';
import type { ConnectionLimit } from './connection-limit';
import { authenticateClient } from './credential-request';
import type { EventHub } from './event-hub';
import { type RealtimeClient, createRealtimeClient } from './realtime-client';
import { type HubEntry, eventJson } from './realtime-event';
import type { ResolvedRealtimeOptions } from './realtime-options';

/** Largest client message; subscribe messages are small. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Bytes queued on a socket past which it counts as not reading (Node's default stream high-water mark). */
const SOCKET_HIGH_WATER = 16 * 1024;
/** Client messages waiting to be handled (each subscribe checks access) before the socket is closed. */
const MAX_PENDING_MESSAGES = 32;

export interface WsTransport {
  readonly route: RouteDef;
  /** Open sockets. */
  readonly size: number;
  close(): void;
}

interface ClientMessage {
  type: 'subscribe' | 'unsubscribe';
  collections: string[];
}

function parseMessage(data: Buffer, isBinary: boolean): ClientMessage | { error: string; code: string } {
  if (isBinary) return { code: 'invalid_message', error: 'Messages are JSON text.' };
  let message: unknown;
  try {
    message = JSON.parse(data.toString('utf8'));
  } catch {
    return { code: 'invalid_json', error: 'The message is not valid JSON.' };
  }
  if (!isRecord(message) || (message.type !== 'subscribe' && message.type !== 'unsubscribe')) {
    return { code: 'invalid_message', error: 'Send { "type": "subscribe" | "unsubscribe", "collections": [...] }.' };
  }
  const { collections } = message;
  if (!Array.isArray(collections) || collections.length === 0 || !collections.every((c) => typeof c === 'string' && c !== '')) {
    return { code: 'invalid_message', error: 'collections must be a non-empty array of collection slugs.' };
  }
  return { type: message.type, collections: [...new Set(collections as string[])] };
}

/** The code a client sees for a refused subscription: the detail's code when there is one (unknown_collection, ...). */
function codeOf(error: ContentError): string {
  return error.errors?.[0]?.code ?? error.code;
}

/** Creates the WebSocket endpoint. */
export function createWsTransport(ctx: {
  runtime: Runtime;
  hub: EventHub<HubEntry>;
  options: ResolvedRealtimeOptions;
  clients: Set<RealtimeClient>;
  limit: ConnectionLimit;
}): WsTransport {
  const { runtime, hub, options, clients, limit } = ctx;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const alive = new Map<WebSocket, boolean>();
  let closed = false;

  // One timer for every socket: a socket that did not answer the last ping is dead.
  const pinger = setInterval(() => {
    for (const [ws, answered] of alive) {
      if (!answered) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, options.heartbeatMs);
  pinger.unref();

  function onConnection(ws: WebSocket, client: RealtimeClient, state: { backlog: number }): void {
    alive.set(ws, true);
    clients.add(client);
    ws.on('pong', () => alive.set(ws, true));
    ws.on('close', () => client.close());
    ws.on('error', () => ws.terminate());

    let queue = Promise.resolve();
    let pending = 0;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (++pending > MAX_PENDING_MESSAGES) {
        ws.close(1008, 'too many pending messages');
        return;
      }
      queue = queue.then(() => handle(parseMessage(data, isBinary))).finally(() => {
        pending--;
      });
    });

    function send(message: unknown): void {
      sendText(ws, state, JSON.stringify(message));
    }

    async function handle(message: ReturnType<typeof parseMessage>): Promise<void> {
      if ('error' in message) return send({ type: 'error', code: message.code, message: message.error });
      if (message.type === 'unsubscribe') {
        client.unsubscribe(message.collections);
        return send({ type: 'unsubscribed', collections: message.collections });
      }
      try {
        const grant = await client.authorize(message.collections);
        client.activate(grant);
        send({ type: 'subscribed', collections: [...grant.keys()] });
      } catch (error) {
        if (error instanceof ContentError) return send({ type: 'error', code: codeOf(error), message: error.message });
        runtime.config.logger.error('content-router: a realtime subscription failed:', error);
        send({ type: 'error', code: 'internal_error', message: 'The subscription could not be set up.' });
      }
    }
  }

  /**
   * Sends one message. Behind a full socket (bufferedAmount past the high-water mark) messages are counted,
   * and a client with more than maxBufferedEvents piled up is dropped: a burst to a reading client is not.
   */
  function sendText(ws: WebSocket, state: { backlog: number }, text: string | Buffer): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount <= SOCKET_HIGH_WATER) state.backlog = 0;
    else if (++state.backlog > options.maxBufferedEvents) {
      ws.terminate();
      return;
    }
    // A Buffer is sent as it is (already UTF-8), still as a text message.
    ws.send(text, { binary: false });
  }

  function accept(req: Request, socket: Duplex, head: Buffer, user: AuthUser | null): void {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const state = { backlog: 0 };
      const client = createRealtimeClient({
        runtime,
        hub,
        options,
        req,
        user,
        transport: {
          send: (entry) => sendText(ws, state, eventJson(entry)),
          revoked: (slug, error) => sendText(ws, state, JSON.stringify({ type: 'error', code: codeOf(error), message: error.message, collection: slug })),
          end(error) {
            sendText(ws, state, JSON.stringify({ type: 'error', code: codeOf(error), message: error.message }));
            ws.close(1008, error.code);
            client.close();
          },
        },
        onClose() {
          alive.delete(ws);
          clients.delete(client);
          if (ws.readyState === WebSocket.OPEN) ws.close(1000);
        },
      });
      if (closed) return ws.terminate();
      onConnection(ws, client, state);
    });
  }

  /**
   * Runs after the route's request phases (database gate, rate limit). A bad credential or a client over its
   * connection cap is refused before anything is written on the socket; the cap's slot is held until the
   * socket closes, whether or not the handshake completes.
   */
  async function upgrade(req: Request, socket: Duplex, head: Buffer): Promise<void> {
    if (closed) throw new ServiceUnavailableError('The server is shutting down.');
    const user = await authenticateClient(runtime, req);
    const release = limit.acquire(req, user);
    if (socket.destroyed) return release();
    socket.once('close', release);
    if (closed) return void socket.destroy();
    accept(req, socket, head, user);
  }

  const route: RouteDef = {
    method: 'get',
    path: '/ws',
    operationId: 'realtime.ws',
    summary: 'WebSocket endpoint for change events (send Upgrade: websocket)',
    tags: ['realtime'],
    auth: 'optional',
    query: [{ name: 'token', description: 'An access token or API key, for clients that cannot send headers.', schema: { type: 'string' } }],
    responses: {
      101: { description: 'Switching to the WebSocket protocol.' },
      401: { description: 'A bad credential (the upgrade is refused).' },
      426: { description: 'A plain request without Upgrade: websocket.' },
      429: { description: 'The client is over the rate limit, or already holds maxConnectionsPerClient realtime connections.' },
    },
    handler() {
      throw new UpgradeRequiredError();
    },
    upgrade,
  };

  return {
    route,
    get size() {
      return alive.size;
    },
    close() {
      closed = true;
      clearInterval(pinger);
      for (const ws of [...alive.keys()]) ws.terminate();
      wss.close();
    },
  };
}
