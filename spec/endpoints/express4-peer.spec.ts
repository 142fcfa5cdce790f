// Function endpoints when the host's express (the package's peer) is Express 4: its router ignores the
// promise of an async handler, so a rejection must still become a problem answer, never a hung request.
import request from 'supertest';
import { NotFoundError } from '../../lib';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

// Every `express` the package (and the test host) imports is Express 4 in this file.
jest.mock('express', () => jest.requireActual('express4'));

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    endpoints: [
      (router) => {
        router.get('/async/missing', async () => {
          throw new NotFoundError('Nothing here.');
        });
        router.get('/async/crash', async () => {
          await Promise.resolve();
          throw new Error('internal detail');
        });
        router.get('/async/ok', async (req, res) => {
          await Promise.resolve();
          res.json({ user: req.context?.user ?? null });
        });
        router.get('/handled', (_req, _res, next) => next(new Error('to the router error handler')));
        // The router's own error handler still gets errors of its routes first.
        router.use((error: Error, _req: unknown, res: { status(n: number): { json(b: unknown): void } }, next: (e?: unknown) => void) => {
          if (error.message === 'to the router error handler') return res.status(418).json({ own: true });
          next(error);
        });
        router.get('/async/rethrown', async () => {
          throw new Error('to rethrow');
        });
        // An async error handler that rejects: Express 4 ignores its promise too.
        router.use(async (error: Error, _req: unknown, _res: unknown, next: (e?: unknown) => void) => {
          await null;
          if (error.message !== 'to rethrow') return next(error);
          throw new Error('rethrown by the error handler');
        });
      },
    ],
  });
});

afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

it('is really running on Express 4', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module the mock of express resolves to, asked at run time
  expect(require('express')).toBe(jest.requireActual('express4'));
});

it('answers async rejections as problems: a ContentError with its status, anything else a 500', async () => {
  const missing = await request(t.app).get('/api/async/missing');
  expect(missing.status).toBe(404);
  expect(missing.body.detail).toBe('Nothing here.');
  const crash = await request(t.app).get('/api/async/crash');
  expect(crash.status).toBe(500);
  expect(crash.body.detail).toBe('An unexpected error occurred.');
  expect((await request(t.app).get('/api/async/ok')).body).toEqual({ user: null });
});

it("keeps the router's own error handlers", async () => {
  const res = await request(t.app).get('/api/handled');
  expect(res.status).toBe(418);
  expect(res.body).toEqual({ own: true });
});

it('answers a rejection of an async error handler as a 500 problem, as Express 5 does', async () => {
  // Unwrapped, the rejection is unhandled (it can end the host process) and the request hangs.
  const res = await request(t.app).get('/api/async/rethrown').timeout(3000);
  expect(res.status).toBe(500);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.detail).toBe('An unexpected error occurred.');
});
