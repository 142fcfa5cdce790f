// WebSocket at /ws on the `ws` package (noServer): the route's upgrade handler, which the router runs for
// upgrades of <prefix>/ws once the host calls api.attach(server), after the route's request phases.
import type { Duplex } from 'node:stream';
import type { Request } from 'express';
import { WebSocket, WebSocketServer } from 'ws';
import type { AuthUser } from '../config/types';
import { type ContentError, CrossOriginRequestError, ServiceUnavailableError, UpgradeRequiredError, isErrorAnswer } from '../errors';
import { isCrossOriginSession, trustedOrigins } from '../http/cross-origin';
import type { RouteDef } from '../http/route-table';
import type { Runtime } from '../operations/runtime';
import { isRecord } from '../util/is-record';
import type { ConnectionLimit } from './connection-limit';
import { authenticateClient, credentialRequest } from './credential-request';
import type { EventHub } from './event-hub';
import type { RuleBook } from './read-matcher';
import { type ClientContext, type ClientTransport, type RealtimeClient, createRealtimeClient } from './realtime-client';
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

/** What every connection of the endpoint shares. */
interface Endpoint extends ClientContext {
  readonly connections: Map<WebSocket, WsConnection>;
  readonly clients: Set<RealtimeClient>;
}

/**
 * One socket and its client. A class whose socket listeners are shared functions (they find the connection
 * by socket): thousands of idle connections each hold one object, not a dozen closures.
 */
class WsConnection implements ClientTransport {
  readonly client: RealtimeClient;
  /** False once a ping went out unanswered. */
  alive = true;
  /** Messages sent while the socket was past its high-water mark. */
  private backlog = 0;
  /** Client messages received and not yet handled; handled one at a time, in order. */
  private pending = 0;
  private queue: Promise<void> | undefined = undefined;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly ws: WebSocket,
    req: Request,
    user: AuthUser | null,
  ) {
    this.client = createRealtimeClient(endpoint, req, user, this);
  }

  send(entry: HubEntry): void {
    this.sendText(eventJson(entry));
  }

  revoked(slug: string, error: ContentError): void {
    this.sendText(JSON.stringify({ type: 'error', code: codeOf(error), message: error.message, collection: slug }));
  }

  end(error: ContentError): void {
    this.sendText(JSON.stringify({ type: 'error', code: codeOf(error), message: error.message }));
    this.ws.close(1008, error.code);
    this.client.close();
  }

  closed(): void {
    this.endpoint.connections.delete(this.ws);
    this.endpoint.clients.delete(this.client);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
  }

  /** A client message: queued behind those before it; too many waiting closes the socket. */
  receive(data: Buffer, isBinary: boolean): void {
    if (++this.pending > MAX_PENDING_MESSAGES) {
      this.ws.close(1008, 'too many pending messages');
      return;
    }
    this.queue = (this.queue ?? Promise.resolve())
      .then(() => this.handle(parseMessage(data, isBinary)))
      .finally(() => {
        // An idle connection keeps no settled promise.
        if (--this.pending === 0) this.queue = undefined;
      });
  }

  private async handle(message: ReturnType<typeof parseMessage>): Promise<void> {
    if ('error' in message) {
      this.reply({ type: 'error', code: message.code, message: message.error });
      return;
    }
    if (message.type === 'unsubscribe') {
      this.client.unsubscribe(message.collections);
      this.reply({ type: 'unsubscribed', collections: message.collections });
      return;
    }
    try {
      const grant = await this.client.authorize(message.collections);
      this.client.activate(grant);
      this.reply({ type: 'subscribed', collections: [...grant.keys()] });
    } catch (error) {
      if (isErrorAnswer(error)) {
        this.reply({ type: 'error', code: codeOf(error), message: error.message });
        return;
      }
      this.endpoint.runtime.config.logger.error('content-router: a realtime subscription failed:', error);
      this.reply({ type: 'error', code: 'internal_error', message: 'The subscription could not be set up.' });
    }
  }

  private reply(message: unknown): void {
    this.sendText(JSON.stringify(message));
  }

  /**
   * Sends one message. Behind a full socket (bufferedAmount past the high-water mark) messages are counted,
   * and a client with more than maxBufferedEvents piled up is dropped: a burst to a reading client is not.
   */
  private sendText(text: string | Buffer): void {
    const { ws } = this;
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount <= SOCKET_HIGH_WATER) this.backlog = 0;
    else if (++this.backlog > this.endpoint.options.maxBufferedEvents) {
      ws.terminate();
      return;
    }
    // A Buffer is sent as it is (already UTF-8), still as a text message.
    ws.send(text, { binary: false });
  }
}

function terminateOnError(this: WebSocket): void {
  this.terminate();
}

/** Creates the WebSocket endpoint. */
export function createWsTransport(ctx: {
  runtime: Runtime;
  hub: EventHub<HubEntry>;
  options: ResolvedRealtimeOptions;
  rules: RuleBook;
  clients: Set<RealtimeClient>;
  limit: ConnectionLimit;
}): WsTransport {
  const { runtime, hub, options, rules, clients, limit } = ctx;
  // No client tracking: `connections` tracks the sockets already (ws's would add a Set entry and a listener per socket).
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: false });
  const connections = new Map<WebSocket, WsConnection>();
  const endpoint: Endpoint = { runtime, hub, options, rules, clients, connections };
  const trusted = trustedOrigins(runtime);
  let closed = false;
  /** close() sets `closed` while an upgrade awaits: a call, as control-flow narrowing cannot see that. */
  const isClosed = (): boolean => closed;

  // One timer for every socket: a socket that did not answer the last ping is dead.
  const pinger = setInterval(() => {
    for (const [ws, connection] of connections) {
      if (!connection.alive) {
        ws.terminate();
        continue;
      }
      connection.alive = false;
      ws.ping();
    }
  }, options.heartbeatMs);
  pinger.unref();

  // The listeners every socket shares: `this` is the socket.
  function onPong(this: WebSocket): void {
    const connection = connections.get(this);
    if (connection) connection.alive = true;
  }
  function onMessage(this: WebSocket, data: Buffer, isBinary: boolean): void {
    connections.get(this)?.receive(data, isBinary);
  }
  function onClose(this: WebSocket): void {
    connections.get(this)?.client.close();
  }

  function accept(req: Request, socket: Duplex, head: Buffer, user: AuthUser | null): void {
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (closed) {
        ws.terminate();
        return;
      }
      const connection = new WsConnection(endpoint, ws, req, user);
      connections.set(ws, connection);
      clients.add(connection.client);
      ws.on('pong', onPong);
      ws.on('close', onClose);
      ws.on('error', terminateOnError);
      ws.on('message', onMessage);
    });
  }

  /**
   * Runs after the route's request phases (database gate, rate limit). A bad credential or a client over its
   * connection cap is refused before anything is written on the socket; the cap's slot is held until the
   * socket closes, whether or not the handshake completes.
   */
  async function upgrade(req: Request, socket: Duplex, head: Buffer): Promise<void> {
    if (closed) throw new ServiceUnavailableError('The server is shutting down.');
    // A page of any origin may open a WebSocket to this server, and the browser sends the server's cookies
    // with it; no same-origin policy then keeps the page from reading what arrives. A host whose
    // auth.fromRequest reads its session from the upgrade (a cookie) would hand that page its user's
    // records: refused, as a cross-site write is (browsers send Origin on every handshake).
    if (isCrossOriginSession(runtime, credentialRequest(req), trusted)) {
      throw new CrossOriginRequestError(
        'This WebSocket was opened from another origin with your session, so it was refused. Open it from this site, from an origin listed in security.trustedOrigins, or with an access token or API key.',
      );
    }
    const user = await authenticateClient(runtime, req);
    const release = limit.acquire(req, user);
    if (socket.destroyed) {
      release();
      return;
    }
    // `on`, not `once`: the socket closes once, and release is idempotent (once wraps it in more objects).
    socket.on('close', release);
    if (isClosed()) return void socket.destroy();
    accept(req, socket, head, user);
  }

  const route: RouteDef = {
    method: 'get',
    path: '/ws',
    operationId: 'realtime.ws',
    summary: 'Open a WebSocket of change events (send Upgrade: websocket)',
    tags: ['realtime'],
    auth: 'optional',
    query: [{ name: 'token', description: 'An access token or API key, for clients that cannot send headers.', schema: { type: 'string' } }],
    responses: {
      101: { description: 'Switching to the WebSocket protocol.' },
      401: { description: 'A bad credential (the upgrade is refused).' },
      403: { description: "Opened from another origin with the host's session (`cross_origin_request`)." },
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
      return connections.size;
    },
    close() {
      closed = true;
      clearInterval(pinger);
      for (const ws of [...connections.keys()]) ws.terminate();
      wss.close();
    },
  };
}
