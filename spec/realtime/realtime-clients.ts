// Test clients over real sockets: an SSE reader (node:http + eventsource-parser) and a `ws` client, each
// collecting what arrives and letting a spec wait for the next matching event.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import WebSocket from 'ws';

/** Resolves once `pick` finds something in `items`, re-checking whenever `notify` fires. */
class Inbox<T> {
  readonly items: T[] = [];
  private waiters: Array<() => void> = [];
  push(item: T): void {
    this.items.push(item);
    this.wake();
  }
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
  /** The first item from index `from` matching `match`; rejects after `ms` with what did arrive. */
  async find(match: (item: T) => boolean, from = 0, ms = 5000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.items.slice(from).find(match);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out; received: ${JSON.stringify(this.items).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body of a non-200 answer. */
  body: string;
  events: Inbox<EventSourceMessage>;
  comments: Inbox<string>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  next(match: (e: EventSourceMessage) => boolean, ms?: number): Promise<EventSourceMessage>;
  close(): void;
}

/** The base URL of a listening server. */
export function baseUrl(server: http.Server): string {
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** Opens `GET path` as an event stream; resolves when the status line and headers are in. */
export function openSse(server: http.Server, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl(server)}${path}`, { headers: { Accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      const events = new Inbox<EventSourceMessage>();
      const comments = new Inbox<string>();
      const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c.trim()) });
      let body = '';
      let onEnd!: () => void;
      const ended = new Promise<void>((r) => (onEnd = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode === 200) parser.feed(chunk);
        else body += chunk;
      });
      const finish = () => {
        onEnd();
        events.wake();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get body() {
          return body;
        },
        events,
        comments,
        ended,
        next: (match, ms) => events.find(match, 0, ms),
        close: () => req.destroy(),
      };
      if (res.statusCode === 200) resolve(client);
      else res.on('end', () => resolve(client));
    });
    req.on('error', reject);
  });
}

export interface WsClient {
  socket: WebSocket;
  messages: Inbox<Record<string, unknown>>;
  closed: Promise<number>;
  send(message: unknown): void;
  /** The next message from now on matching `match`. */
  next(match: (m: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  close(): void;
}

/** Connects a `ws` client to `path`; rejects with the HTTP status when the upgrade is refused. */
export function openWs(server: http.Server, path: string, options: WebSocket.ClientOptions = {}): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl(server).replace('http', 'ws')}${path}`, options);
    const messages = new Inbox<Record<string, unknown>>();
    let onClosed!: (code: number) => void;
    const closed = new Promise<number>((r) => (onClosed = r));
    let read = 0;
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.on('close', (code) => {
      onClosed(code);
      messages.wake();
    });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, headers: res.headers, body })));
    });
    socket.on('error', reject);
    socket.on('open', () =>
      resolve({
        socket,
        messages,
        closed,
        send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
        async next(match, ms) {
          const found = await messages.find(match, read, ms);
          read = messages.items.indexOf(found) + 1;
          return found;
        },
        close: () => socket.terminate(),
      }),
    );
  });
}

/** Listens on 127.0.0.1, port 0. */
export function listen(app: http.RequestListener): Promise<http.Server> {
  return new Promise((resolve) => {
    const server = http.createServer(app);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Closes a server and every connection still open on it. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
