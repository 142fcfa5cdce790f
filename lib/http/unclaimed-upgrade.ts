// Upgrade requests that no router on the server takes. Once a server has an 'upgrade' listener, Node hands
// it every request with `Connection: upgrade` (an h2c attempt, a WebSocket to any path) and never parses
// that connection again: an upgrade nobody takes would hang, its socket open. A server may ignore Upgrade,
// so such a request goes to the host's own upgrade listeners if it has any, else is served as the plain
// request it also is, through the host's request handlers.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The property by which a router's upgrade listener says which upgrades it takes. A registered symbol, so
 * two copies of the package attached to one server still see each other's listeners as routers.
 */
const TAKES = Symbol.for('content-router.takes-upgrade');
/** Marks the server's shouldUpgradeCallback once a router has wrapped it. */
const WRAPPED = Symbol.for('content-router.should-upgrade');

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
/** A router's upgrade listener, with the test of the upgrades it takes. */
export type RouterUpgradeListener = UpgradeHandler & { readonly [TAKES]: (req: IncomingMessage) => boolean };

type UpgradeCallback = ((this: Server, req: IncomingMessage) => boolean) & { [WRAPPED]?: true };

/** `listener` marked as a router's, taking the upgrades `takes` accepts. */
export function routerUpgradeListener(listener: UpgradeHandler, takes: (req: IncomingMessage) => boolean): RouterUpgradeListener {
  return Object.assign(listener, { [TAKES]: takes });
}

function takesOf(listener: unknown): ((req: IncomingMessage) => boolean) | undefined {
  const takes = (listener as Partial<RouterUpgradeListener>)[TAKES];
  return typeof takes === 'function' ? takes : undefined;
}

/** True when a router on the server takes `req`, or the host has an upgrade listener of its own. */
function isClaimed(listeners: readonly unknown[], req: IncomingMessage): boolean {
  return listeners.some((listener) => takesOf(listener)?.(req) ?? true);
}

/**
 * Node's per-connection HTTP handling, which http and https servers run for each new connection. Not in
 * Node's documentation, but exported by node:http in every version tested (20, 22, 24); it is what lets the
 * host's server parse the connection again without telling its 'connection' listeners of a new one.
 */
const parseConnection = (http as unknown as { _connectionListener?: (this: Server, socket: Duplex) => void })._connectionListener;

/**
 * From Node 26 on, an upgrade request's body is parsed into the request before the socket is handed over
 * (nodejs/node#60016): the router could no longer put the request back whole to be parsed again.
 */
const NODE_PARSES_UPGRADE_BODIES = Number(process.versions.node.split('.')[0]) >= 26;

/** Node's own test of a request with a body. */
function hasBody(req: IncomingMessage): boolean {
  return 'content-length' in req.headers || 'transfer-encoding' in req.headers;
}

/** True when the router can serve `req` as a plain request itself (serveUnclaimedUpgrade). */
function routerServes(req: IncomingMessage): boolean {
  return parseConnection !== undefined && !(NODE_PARSES_UPGRADE_BODIES && hasBody(req));
}

/**
 * Where Node has the `shouldUpgradeCallback` server option (22.21, 24.9 and later), wraps it so the
 * routers' upgrades are taken whatever the host's callback says, and the host's callback decides the rest
 * when the host has upgrade listeners of its own. An upgrade that only routers listen to and none takes is
 * still taken, to be served as a plain request by the router (serveUnclaimedUpgrade): Node serves a
 * declined upgrade as a plain request too, but runs it as soon as it is parsed, before the answers owed
 * ahead of it (and even when the connection closes after them), and stops parsing the connection after it
 * for everything already received, so requests pipelined behind it in the same packet are never answered.
 * Only where the router cannot serve it is it declined, left to Node. Wrapped once per server and left in
 * place: without router listeners it answers exactly as the callback it wraps.
 */
export function wrapShouldUpgradeCallback(server: Server): void {
  const target = server as Server & { shouldUpgradeCallback?: UpgradeCallback };
  const wrapped = target.shouldUpgradeCallback;
  if (typeof wrapped !== 'function' || wrapped[WRAPPED]) return;
  target.shouldUpgradeCallback = Object.assign(
    function shouldUpgrade(this: Server, req: IncomingMessage): boolean {
      const listeners = server.listeners('upgrade');
      const routers = listeners.filter((listener) => takesOf(listener));
      if (routers.some((listener) => takesOf(listener)?.(req))) return true;
      if (routers.length === 0 || routers.length < listeners.length) return wrapped.call(this, req);
      return routerServes(req);
    },
    { [WRAPPED]: true as const },
  );
}

/** The request's head as it came, less Upgrade: parsed again, it is a plain request. Header text is latin1 in Node. */
function plainRequestHead(req: IncomingMessage): Buffer {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== 'upgrade') lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/**
 * Calls `then` once the connection owes no answer to a request before the upgrade (at once when it owes
 * none), or ends the socket when it is closing by then. A response still being written holds the socket
 * (`_httpMessage`, with those pipelined behind it queued in the old connection state): a request parsed
 * again now would get its answer queued where nothing ever sends it, so it waits its turn, as Node has
 * pipelined requests wait. The old connection state no longer listens to the socket: errors meanwhile are ours.
 */
function whenAnswered(socket: Duplex, then: () => void): void {
  const onError = () => socket.destroy();
  socket.on('error', onError);
  const next = () => {
    if (socket.destroyed) return;
    // The last answer before it closed the connection (`Connection: close`): the upgrade is never run.
    if (socket.writableEnded) return void socket.destroy();
    const owed = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    // 'close' follows 'finish', and the old connection state hands the socket to the next answer on 'finish'.
    if (owed) return void owed.once('close', next);
    socket.off('error', onError);
    then();
  };
  next();
}

/**
 * Serves an upgrade `self` (a router's listener) does not take. Nothing is done when another router takes
 * it or the host has an upgrade listener of its own; of several routers, the first listening answers. Node
 * read only the head and left the body (`head`, then the socket) unparsed, so the head is put back in
 * front of it, without Upgrade, and once the answers owed before it are sent the host's server parses the
 * connection again: the request reaches the host app like any other, its body, keep-alive, timeouts and
 * rate limits included.
 */
export function serveUnclaimedUpgrade(server: Server, self: RouterUpgradeListener, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const listeners = server.listeners('upgrade');
  if (isClaimed(listeners.filter((listener) => listener !== self), req)) return;
  if (listeners.find((listener) => takesOf(listener)) !== self) return;
  if (!parseConnection) return void socket.destroy();
  const reparse = parseConnection;
  socket.unshift(Buffer.concat([plainRequestHead(req), head]));
  whenAnswered(socket, () => {
    // As on a new connection: no keep-alive timeout left over from the answer before (the server's
    // own timeout, if any, is set again by Node).
    (socket as Duplex & { setTimeout?: (ms: number) => void }).setTimeout?.(0);
    reparse.call(server, socket);
  });
}
