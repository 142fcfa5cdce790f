// The request lifecycle (lib/http/lifecycle.ts): the phases run in order around the handler, each route's
// chain is composed once at start-up, errors of any phase (and the dispatcher's own) go to the onError
// hooks, and an upgrade runs its route's phases with the same runner. No database.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { ForbiddenError } from '../../lib/errors';
import { conditionalGet } from '../../lib/http/conditional-get';
import { createDispatcher } from '../../lib/http/dispatch';
import { type Lifecycle, type RouteHook, createLifecycle } from '../../lib/http/lifecycle';
import type { RouteDef } from '../../lib/http/route-table';
import { createUpgradeListener } from '../../lib/http/upgrade-listener';
import { until } from '../helpers/eventually';

function route(method: RouteDef['method'], path: string, extra: Partial<RouteDef> = {}): RouteDef {
  return {
    method,
    path,
    operationId: `test.${method}.${path}`,
    summary: path,
    tags: [],
    auth: 'none',
    responses: { 200: { description: 'ok' } },
    handler: (req, res) => void res.json({ seen: (req as { seen?: string[] }).seen ?? [] }),
    ...extra,
  };
}

/** A hook recording its name on the request, for every route (or those `only` accepts). */
function mark(name: string, only: (route: RouteDef) => boolean = () => true): RouteHook {
  return (r) =>
    only(r)
      ? (req, _res, next) => {
          const marked = req as { seen?: string[] };
          (marked.seen ??= []).push(name);
          next();
        }
      : undefined;
}

/** An error hook answering every error as `{ error }` with the error's status (or 500). */
const answer: ErrorRequestHandler = (error: { status?: number; message: string }, _req, res, _next) => {
  res.status(error.status ?? 500).json({ error: error.message });
};

function app(routes: RouteDef[], lifecycle: Lifecycle): express.Express {
  const host = express();
  host.use(createDispatcher(routes, lifecycle));
  host.use(((error: Error, _req, res, _next) => void res.status(599).json({ host: error.message })) as ErrorRequestHandler);
  return host;
}

describe('the request lifecycle', () => {
  it('runs onRequest, parse and preHandler in that order before the handler, whatever order the hooks were added in', async () => {
    const lifecycle = createLifecycle();
    lifecycle.preHandler.push(mark('preHandler'));
    lifecycle.parse.push(mark('parse'));
    lifecycle.onRequest.push(mark('onRequest:1'), mark('onRequest:2'));
    const res = await request(app([route('post', '/things')], lifecycle)).post('/things');
    expect(res.status).toBe(200);
    expect(res.body.seen).toEqual(['onRequest:1', 'onRequest:2', 'parse', 'preHandler']);
  });

  it('asks each hook once per route at start-up, and leaves a route out of a phase whose hook returns nothing', async () => {
    const lifecycle = createLifecycle();
    const asked: string[] = [];
    lifecycle.parse.push((r) => (asked.push(r.operationId), mark('json', (x) => x.method === 'post')(r)));
    const served = app([route('get', '/things'), route('post', '/things')], lifecycle);
    expect(asked).toEqual(['test.get./things', 'test.post./things']);
    expect((await request(served).get('/things')).body.seen).toEqual([]);
    expect((await request(served).post('/things')).body.seen).toEqual(['json']);
    expect((await request(served).post('/things')).body.seen).toEqual(['json']);
    expect(asked).toHaveLength(2);
  });

  it('sends an error of any phase past the later phases and the handler to the onError hooks, in order', async () => {
    const lifecycle = createLifecycle();
    const handler = jest.fn();
    const observed: string[] = [];
    const fail: RouteHook = () => async () => {
      throw new ForbiddenError('refused in parse');
    };
    lifecycle.parse.push(fail);
    lifecycle.preHandler.push(mark('preHandler'));
    lifecycle.onError.push((error: Error, _req, _res, next) => (observed.push(error.message), next(error)), answer);
    const res = await request(app([route('post', '/things', { handler })], lifecycle)).post('/things');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'refused in parse' });
    expect(observed).toEqual(['refused in parse']);
    expect(handler).not.toHaveBeenCalled();
  });

  it("sends the dispatcher's own 404 and 405 to the onError hooks", async () => {
    const lifecycle = createLifecycle();
    lifecycle.onError.push(answer);
    const served = app([route('get', '/things/:id')], lifecycle);
    expect((await request(served).get('/things/1/more')).status).toBe(404);
    const wrongMethod = await request(served).delete('/things/1');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error).toEqual(expect.any(String));
  });

  it("passes an error no onError hook answers on to the host's error handler, and a handler's plain next() to the host", async () => {
    const lifecycle = createLifecycle();
    const passOn: RouteDef['handler'] = (_req, _res, next) => next?.();
    const host = app([route('get', '/fails', { handler: () => Promise.reject(new Error('boom')) }), route('get', '/passes', { handler: passOn })], lifecycle);
    host.get('/passes', (_req, res) => void res.json({ host: 'served' }));
    expect(await request(host).get('/fails')).toMatchObject({ status: 599, body: { host: 'boom' } });
    expect(await request(host).get('/passes')).toMatchObject({ status: 200, body: { host: 'served' } });
  });

  it('runs onSend once the handler has answered, before the answer is written: a watcher may set a header and hold the answer back', async () => {
    const lifecycle = createLifecycle();
    const events: string[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handler: RouteDef['handler'] = async (_req, res) => {
      events.push('handler');
      res.json({ ok: true });
      // The route counts as answered while its answer is held back, although nothing is written yet.
      events.push(`headersSent:${res.headersSent}`);
    };
    lifecycle.onSend.push(() => (_req, res) => ({
      keepBody: 1024,
      onSend: async (sent) => {
        events.push(`onSend:${sent.res.statusCode}:${sent.body?.toString()}`);
        res.set('X-Watched', 'yes');
        await released;
      },
      onHandled: () => void events.push('handled'),
    }));
    const served = app([route('post', '/things', { handler })], lifecycle);
    const answered = request(served).post('/things').then((res) => (events.push('written'), res));
    await until(() => events.includes('handled'));
    expect(events).toEqual(['handler', 'onSend:200:{"ok":true}', 'headersSent:false', 'handled']);
    release();
    const res = await answered;
    expect(res.status).toBe(200);
    expect(res.headers['x-watched']).toBe('yes');
    expect(res.body).toEqual({ ok: true });
    expect(events.at(-1)).toBe('written');
  });

  it('leaves a request alone when onSend opens no watcher for it, and never wraps the route handler', async () => {
    const lifecycle = createLifecycle();
    const handler: RouteDef['handler'] = (_req, res) => void res.json({ ok: true });
    const opened = jest.fn(() => undefined);
    lifecycle.onSend.push(() => opened);
    lifecycle.onRoute.push(() => undefined);
    const things = route('post', '/things', { handler });
    const served = app([things], lifecycle);
    const res = await request(served).post('/things');
    expect(res.body).toEqual({ ok: true });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(things.handler).toBe(handler);
  });

  it('answers a conditional GET the answer matches with a 304 in onSend, however the route wrote it and whatever Cache-Control the request sent', async () => {
    const lifecycle = createLifecycle();
    lifecycle.onSend.push(conditionalGet);
    const sent: RouteDef['handler'] = (_req, res) => void res.set('ETag', '"v1"').json({ version: 1 });
    const ended: RouteDef['handler'] = (_req, res) => void res.set({ ETag: '"v1"', 'Content-Type': 'text/plain' }).end('version 1');
    const served = app([route('get', '/sent', { handler: sent }), route('get', '/ended', { handler: ended })], lifecycle);
    for (const path of ['/sent', '/ended']) {
      const fresh = await request(served).get(path).set('If-None-Match', '"v1"').set('Cache-Control', 'no-cache');
      expect(fresh.status).toBe(304);
      expect(fresh.headers['content-type']).toBeUndefined();
      expect(fresh.text).toBeFalsy();
      const stale = await request(served).get(path).set('If-None-Match', '"v0"').set('Cache-Control', 'no-cache');
      expect(stale.status).toBe(200);
      expect(stale.headers.etag).toBe('"v1"');
    }
  });

  it("runs an upgrade through its route's phases (not its handler) and answers a refusal with its onError hooks on the socket", async () => {
    const lifecycle = createLifecycle();
    lifecycle.onRequest.push(() => (req, _res, next) => next(req.headers['x-refuse'] ? new ForbiddenError('refused upgrade') : undefined));
    lifecycle.onError.push(answer);
    const upgraded = jest.fn(async (_req, socket: import('node:stream').Duplex) => void socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n'));
    const handler = jest.fn();
    const dispatcher = createDispatcher([route('get', '/ws', { handler, upgrade: upgraded })], lifecycle);
    const listener = createUpgradeListener({ dispatcher, prefix: '/api' });
    const host = express();
    host.use('/api', dispatcher);
    const server = http.createServer(host);
    listener.attach(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const send = (extra: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
          socket.write(`GET /api/ws HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: test\r\n${extra}\r\n`);
        });
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    try {
      const refused = await send('X-Refuse: 1\r\n');
      expect(refused.split('\r\n')[0]).toBe('HTTP/1.1 403 Forbidden');
      expect(refused).toContain('{"error":"refused upgrade"}');
      expect(upgraded).not.toHaveBeenCalled();
      expect((await send('')).split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
      expect(upgraded).toHaveBeenCalledTimes(1);
      expect(handler).not.toHaveBeenCalled();
    } finally {
      listener.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
