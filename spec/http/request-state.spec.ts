// The request state: one typed object per request, made by the dispatcher, that the phases, the handler and
// the operations share; the operations learn from it (never from Express) that the request was answered in
// its route's place; the multipart reader shows a form to whatever the state says observes it. No database.
import type { Readable } from 'node:stream';
import express, { type Request } from 'express';
import request from 'supertest';
import { createDispatcher } from '../../lib/http/dispatch';
import { createErrorHandler } from '../../lib/http/error-handler';
import { createLifecycle } from '../../lib/http/lifecycle';
import { createMultipartReader } from '../../lib/http/multipart';
import type { RouteDef } from '../../lib/http/route-table';
import { assertUnanswered } from '../../lib/operations/answered';
import { type RequestState, newRequestState, requestState } from '../../lib/operations/request-state';

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

function route(method: RouteDef['method'], path: string, handler: RouteDef['handler']): RouteDef {
  return { method, path, operationId: `test.${method}.${path}`, summary: path, tags: [], auth: 'none', responses: { 200: { description: 'ok' } }, handler };
}

describe('the request state', () => {
  it('is one object per request, shared by its phases and its handler, and another for the next request', async () => {
    const seen: RequestState[][] = [];
    const lifecycle = createLifecycle();
    lifecycle.onRequest.push(() => (req, _res, next) => (seen.push([requestState(req)]), next()));
    lifecycle.preHandler.push(() => (req, _res, next) => (seen.at(-1)!.push(requestState(req)), next()));
    const handler: RouteDef['handler'] = (req, res) => {
      seen.at(-1)!.push(requestState(req));
      res.json({});
    };
    const app = express().use(createDispatcher([route('get', '/things', handler)], lifecycle));
    await request(app).get('/things');
    await request(app).get('/things');
    expect(seen).toHaveLength(2);
    for (const states of seen) expect(new Set(states).size).toBe(1);
    expect(seen[0][0]).not.toBe(seen[1][0]);
    expect(seen[0][0]).toMatchObject({ context: {}, wrote: false, answered: false });
  });

  it('tells an operation its request was answered by the deadline, and nothing else does', async () => {
    const errorHandler = createErrorHandler(silent);
    const outcomes: string[] = [];
    const tryWrite = (req: Request) => {
      try {
        assertUnanswered({ req });
        outcomes.push('write allowed');
      } catch (error) {
        outcomes.push((error as Error).message);
      }
    };
    const handler: RouteDef['handler'] = (req, res) => {
      tryWrite(req);
      errorHandler.answerEarly(new Error('deadline'), req, res);
      tryWrite(req);
    };
    const app = express().use(createDispatcher([route('get', '/slow', handler)], createLifecycle()));
    expect((await request(app).get('/slow')).status).toBe(500);
    expect(outcomes).toEqual(['write allowed', 'The request was answered before its write; nothing was written.']);
    // The flag, not Express: a state that says answered refuses a write even without a request.
    expect(() => assertUnanswered({ state: { ...newRequestState(), answered: true } })).toThrow('nothing was written');
  });

  it("shows a form to the request state's form observer as the multipart reader reads it, whoever set it", async () => {
    const read = createMultipartReader({ files: new Map([['file', 1024]]), fields: 2, fieldSize: 100 });
    const observed: string[] = [];
    const app = express().post('/form', (req, res, next) => {
      requestState(req).formObserver = {
        file(field: string, name: string, _type: string, source: Readable) {
          observed.push(`file ${field} ${name}`);
          return source;
        },
        finish(fields: Record<string, unknown>) {
          observed.push(`fields ${JSON.stringify(fields)}`);
        },
      };
      read(req, res).then((form) => res.json({ fields: form.fields, files: [...form.files.keys()] }), next);
    });
    const res = await request(app).post('/form').field('title', 'Hello').attach('file', Buffer.from('bytes'), 'a.txt');
    expect(res.body).toEqual({ fields: { title: 'Hello' }, files: ['file'] });
    expect(observed).toEqual(['file file a.txt', 'fields {"title":"Hello"}']);
  });
});
