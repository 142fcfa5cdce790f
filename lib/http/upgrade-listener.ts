// Upgrade requests (WebSocket) of the router's routes: api.attach(server) hooks the server's upgrade event,
// and a GET upgrade of exactly the path of a GET route declaring `upgrade` runs that route's request phases
// (database gate, rate limit) with the one chain runner, like any request, so refusals are the same
// problem+json answers, written on the raw socket. Upgrades no route takes are left to the host's
// listeners, or served as plain requests (unclaimed-upgrade.ts).
import { type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import express, { type Application, type Request, type Response } from 'express';
import type { Dispatcher, UpgradeMatch } from './dispatch';
import { runChain } from './lifecycle';
import { type RouterUpgradeListener, routerUpgradeListener, serveUnclaimedUpgrade, wrapShouldUpgradeCallback } from './unclaimed-upgrade';

export interface UpgradeListener {
  /** Hooks the upgrades of this server; once per server. */
  attach(server: Server): void;
  /** Unhooks every server; upgrades already being served finish. */
  close(): void;
}

type ExpressApp = Application & { request: Request; response: Response };

function isExpressApp(listener: unknown): listener is ExpressApp {
  if (typeof listener !== 'function') return false;
  const app = listener as unknown as Partial<Record<'get' | 'request' | 'response', unknown>>;
  return typeof app.get === 'function' && typeof app.request === 'object' && typeof app.response === 'object';
}

/**
 * The Express app the server was created with (`http.createServer(app)`, `app.listen()`), whose settings
 * (`trust proxy`, for `req.ip`) the upgrade's request then follows; else an app with Express's defaults.
 */
function appOf(server: Server, fallback: () => ExpressApp): ExpressApp {
  return server.listeners('request').find(isExpressApp) ?? fallback();
}

/** The part of the request target after the mount prefix (`/ws?token=...`), or undefined outside it. */
function underPrefix(url: string | undefined, prefix: string): string | undefined {
  if (!url) return undefined;
  const path = url.split('?', 1)[0];
  if (!path.startsWith(`${prefix}/`)) return undefined;
  return url.slice(prefix.length);
}

/**
 * Dresses the raw upgrade request as Express does a request (the host app's req/res prototypes, mount
 * path, URL and route parameters), with a response written on the socket that closes it once sent.
 * Properties are added before the prototypes change: V8 gives an object that gains a property after a
 * prototype change a hidden class of its own, which a WebSocket's request would keep for its lifetime.
 */
function expressPair(
  app: ExpressApp,
  raw: IncomingMessage,
  socket: Duplex,
  where: { prefix: string; url: string; params: Record<string, string> },
): { req: Request; res: Response } {
  const response = new ServerResponse(raw);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as Socket);
  response.on('finish', () => {
    socket.once('finish', () => socket.destroy());
    socket.end();
  });
  Object.assign(raw, { res: response, originalUrl: raw.url, baseUrl: where.prefix, url: where.url, params: where.params });
  // res.locals without a prototype, as Express makes it.
  Object.assign(response, { req: raw, locals: Object.create(null) as Record<string, unknown> });
  const req = Object.setPrototypeOf(raw, app.request) as Request;
  const res = Object.setPrototypeOf(response, app.response) as Response;
  return { req, res };
}

function destroyOnError(this: Duplex): void {
  this.destroy();
}

/** Creates the listener for the routes of `dispatcher` mounted at `prefix`; refusals go to the routes' error hooks. */
export function createUpgradeListener(args: { dispatcher: Dispatcher; prefix: string }): UpgradeListener {
  const { dispatcher } = args;
  const prefix = args.prefix.replace(/\/+$/, '');
  const listeners = new Map<Server, RouterUpgradeListener>();
  let defaults: ExpressApp | undefined;
  let closed = false;
  const defaultApp = () => (defaults ??= express() as ExpressApp);

  /** The route taking the upgrade `raw`, and its URL as the router sees it (after the mount prefix). */
  function routeOf(raw: IncomingMessage): { match: UpgradeMatch; url: string } | undefined {
    // Only GET upgrades are routes' (a WebSocket handshake is a GET): another method is someone else's.
    if (raw.method !== 'GET') return undefined;
    const url = underPrefix(raw.url, prefix);
    const match = url === undefined ? undefined : dispatcher.matchUpgrade(url.split('?', 1)[0]);
    return match && url !== undefined ? { match, url } : undefined;
  }

  function serve(server: Server, raw: IncomingMessage, socket: Duplex, head: Buffer, { match, url }: { match: UpgradeMatch; url: string }): void {
    if (socket.destroyed) return;
    const { req, res } = expressPair(appOf(server, defaultApp), raw, socket, { prefix, url, params: match.params });
    // An error no error hook answered (the answer already begun): nothing more can be said on the socket.
    const unanswered = () => socket.destroy();
    runChain(match.before, req, res, (error?: unknown) => {
      if (error) return unanswered();
      if (socket.destroyed || res.headersSent) return;
      // The route's handler writes its own answer (the 101) on the socket. A connection may keep its request
      // for its lifetime (credential checks), so it must not keep the unused response with it.
      res.detachSocket(socket as Socket);
      (req as { res?: Response }).res = undefined;
      match.route.upgrade(req, socket, head).catch((failure: unknown) => {
        if (socket.destroyed) return;
        res.assignSocket(socket as Socket);
        Object.assign(req, { res });
        // Refused: answered by the route's error hooks, as a refusal of its phases is.
        runChain(match.before, req, res, unanswered, failure);
      });
    });
  }

  return {
    attach(server) {
      if (closed || listeners.has(server)) return;
      const listener = routerUpgradeListener(
        (req, socket, head) => {
          const route = routeOf(req);
          if (!route) {
            serveUnclaimedUpgrade(server, listener, req, socket, head);
            return;
          }
          // A listener made outside serve's scope: one made there would keep the whole scope (the request pair,
          // the refusal) alive for as long as the socket lives.
          socket.on('error', destroyOnError);
          // Dressing the request for Express changes its URL: the host's listeners after this one must still
          // see the request as it came, to tell it is not theirs.
          process.nextTick(serve, server, req, socket, head, route);
        },
        (req) => routeOf(req) !== undefined,
      );
      listeners.set(server, listener);
      wrapShouldUpgradeCallback(server);
      server.on('upgrade', listener);
    },
    close() {
      closed = true;
      for (const [server, listener] of listeners) server.off('upgrade', listener);
      listeners.clear();
    },
  };
}
