// GET /sse?collections=a,b: a Server-Sent Events stream of the collections' events. Access is checked
// before the stream opens (400/401/403 as problem+json); afterwards it is a long response watched for backpressure.
import type { Request, Response } from 'express';
import type { AuthUser } from '../config/types';
import { type ContentError, QueryError, ServiceUnavailableError } from '../errors';
import type { Runtime } from '../operations/runtime';
import type { RouteDef } from '../http/route-table';
import type { ConnectionLimit } from './connection-limit';
import { authenticateClient } from './credential-request';
import type { EventHub } from './event-hub';
import type { RuleBook } from './read-matcher';
import { type ClientContext, type ClientTransport, type RealtimeClient, createRealtimeClient } from './realtime-client';
import type { HubEntry } from './realtime-event';
import type { ResolvedRealtimeOptions } from './realtime-options';
import { formatSseComment, formatSseMessage } from './sse-frame';

/** Longest Last-Event-ID looked up; anything longer cannot be one of ours and means "start afresh". */
const MAX_EVENT_ID_LENGTH = 512;

export interface SseTransport {
  readonly route: RouteDef;
  /** Open streams. */
  readonly size: number;
  /** Ends every stream and stops the heartbeat. */
  close(): void;
}

function frameOf(entry: HubEntry): Buffer {
  entry.sse ??= Buffer.from(formatSseMessage({ event: entry.event.type, id: entry.event.id, data: JSON.stringify(entry.event) }));
  return entry.sse;
}

function errorFrame(error: ContentError, collection?: string): string {
  return formatSseMessage({ event: 'error', data: JSON.stringify({ code: error.code, message: error.message, ...(collection ? { collection } : {}) }) });
}

/** The slugs of `?collections=a,b` (repeatable), deduplicated; 400 when none is named. */
export function parseCollectionsParam(url: string): string[] {
  let params: string[];
  try {
    params = new URL(url, 'http://localhost').searchParams.getAll('collections');
  } catch {
    throw new QueryError('The request URL cannot be read.', [{ field: 'collections', message: 'unreadable URL', code: 'malformed_query' }]);
  }
  const slugs = [...new Set(params.flatMap((value) => value.split(',')).map((slug) => slug.trim()).filter(Boolean))];
  if (!slugs.length) {
    throw new QueryError('Name the collections to follow: ?collections=a,b.', [{ field: 'collections', message: 'required', code: 'required' }]);
  }
  return slugs;
}

/** What every stream of the endpoint shares. */
interface Endpoint extends ClientContext {
  readonly connections: Set<SseConnection>;
  readonly clients: Set<RealtimeClient>;
}

/** One stream and its client; a class, so thousands of idle streams each hold one object, not a dozen closures. */
class SseConnection implements ClientTransport {
  readonly client: RealtimeClient;
  /** True once the stream's headers are sent. */
  opened = false;
  /** True while the socket is full (until 'drain'). */
  private blocked = false;
  /** Events written while blocked. */
  private backlog = 0;
  /** The response buffers until flushed (compression and similar middleware add `flush` before the route). */
  private readonly flushes: boolean;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly res: Response,
    req: Request,
    user: AuthUser | null,
    private readonly release: () => void,
  ) {
    // Looked up once, not per event: a property the response lacks is a slow lookup, every response having
    // a hidden class of its own (Express changes its prototype, then adds properties).
    this.flushes = typeof (res as Response & { flush?: unknown }).flush === 'function';
    this.client = createRealtimeClient(endpoint, req, user, this);
  }

  send(entry: HubEntry): void {
    this.write(frameOf(entry));
  }

  revoked(slug: string, error: ContentError): void {
    this.write(errorFrame(error, slug));
    if (this.client.collections.size === 0) this.finish();
  }

  end(error: ContentError): void {
    this.write(errorFrame(error));
    this.finish();
    this.client.close();
  }

  closed(): void {
    this.release();
    this.endpoint.connections.delete(this);
    this.endpoint.clients.delete(this.client);
    this.finish();
  }

  write(chunk: string | Buffer): void {
    const { res } = this;
    if (res.destroyed || res.writableEnded) return;
    // A client that stopped reading: count what piles up behind the full socket, and drop it past the limit.
    if (this.blocked && ++this.backlog > this.endpoint.options.maxBufferedEvents) {
      res.destroy();
      return;
    }
    const ok = res.write(chunk);
    if (this.flushes) (res as Response & { flush(): void }).flush();
    if (!ok && !this.blocked) {
      this.blocked = true;
      this.backlog = 0;
      res.once('drain', () => {
        this.blocked = false;
        this.backlog = 0;
      });
    }
  }

  /** Ends the stream; before it opened, the response belongs to the error handler. */
  private finish(): void {
    if (this.opened && !this.res.writableEnded) this.res.end();
  }
}

/** Creates the SSE route and the heartbeat shared by its streams. */
export function createSseTransport(ctx: {
  runtime: Runtime;
  hub: EventHub<HubEntry>;
  options: ResolvedRealtimeOptions;
  rules: RuleBook;
  clients: Set<RealtimeClient>;
  limit: ConnectionLimit;
}): SseTransport {
  const { runtime, hub, options, rules, clients, limit } = ctx;
  const connections = new Set<SseConnection>();
  const endpoint: Endpoint = { runtime, hub, options, rules, clients, connections };
  let closed = false;
  const comment = Buffer.from(formatSseComment('heartbeat'));
  const heartbeat = setInterval(() => {
    for (const connection of connections) connection.write(comment);
  }, options.heartbeatMs);
  heartbeat.unref();

  async function handler(req: Request, res: Response): Promise<void> {
    const slugs = parseCollectionsParam(req.url);
    const user = await authenticateClient(runtime, req);
    // Held from here until the client closes, so streams still being set up count too.
    const connection = new SseConnection(endpoint, res, req, user, limit.acquire(req, user));
    const { client } = connection;
    let grant;
    try {
      grant = await client.authorize(slugs);
    } catch (error) {
      client.close();
      throw error;
    }
    if (req.destroyed) {
      client.close();
      return;
    }
    if (closed) {
      client.close();
      throw new ServiceUnavailableError('The server is shutting down.');
    }
    // HEAD gets the stream's headers and no stream.
    if (req.method === 'HEAD') {
      client.close();
      res.status(200).type('text/event-stream').end();
      return;
    }

    connection.opened = true;
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    // no-transform keeps compression and proxies from re-encoding (and so buffering) the stream.
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.setHeader('Connection', 'keep-alive');
    res.flushHeaders();
    req.socket.setNoDelay(true);
    res.on('close', () => client.close());
    connections.add(connection);
    clients.add(client);
    connection.write(formatSseComment('connected'));

    const lastEventId = req.headers['last-event-id'];
    let replay: HubEntry[] | undefined = [];
    if (typeof lastEventId === 'string' && lastEventId !== '') {
      replay = lastEventId.length <= MAX_EVENT_ID_LENGTH ? hub.since(lastEventId) : undefined;
      // Missed events cannot be replayed (too old, from another run, or not an id at all): say so, then go live.
      if (!replay) connection.write(formatSseMessage({ event: 'reset', data: JSON.stringify({ message: 'Missed events cannot be replayed; reload the data.' }) }));
    }
    client.activate(grant, replay);
  }

  const route: RouteDef = {
    method: 'get',
    path: '/sse',
    operationId: 'realtime.sse',
    summary: 'Stream changes to the named collections as Server-Sent Events',
    tags: ['realtime'],
    auth: 'optional',
    query: [
      { name: 'collections', description: 'Comma-separated collection slugs to follow.', schema: { type: 'string' } },
      { name: 'token', description: 'An access token or API key, for clients that cannot send headers (EventSource).', schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'An text/event-stream of create, update and delete events (plus reset and error events).' },
      400: { description: 'No collections named, an unknown collection, or more than the subscription limit.' },
      401: { description: 'A bad credential, or none where the access rule needs one.' },
      403: { description: 'The caller may not read one of the collections.' },
      429: { description: 'The client already holds maxConnectionsPerClient realtime connections.' },
    },
    handler,
  };

  return {
    route,
    get size() {
      return connections.size;
    },
    close() {
      closed = true;
      clearInterval(heartbeat);
      for (const connection of [...connections]) connection.client.close();
    },
  };
}
