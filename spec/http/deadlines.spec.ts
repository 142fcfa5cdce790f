// The request deadline's queue, without HTTP: one timer for every request in flight, answered responses
// dropped lazily, and never more kept than the requests still waiting call for.
import type { NextFunction, Request, Response } from 'express';
import { createDeadlines } from '../../lib/http/database-gate';

interface FakeResponse {
  headersSent: boolean;
  destroyed: boolean;
  req: Request;
  destroy(): void;
}

function response(): FakeResponse {
  return { headersSent: false, destroyed: false, req: {} as Request, destroy() { this.destroyed = true; } };
}

describe('the request deadline queue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setUp(ms = 1000) {
    const answered: FakeResponse[] = [];
    const answer = jest.fn((_error: Error, _req: Request, res: Response) => {
      answered.push(res as unknown as FakeResponse);
      (res as unknown as FakeResponse).headersSent = true;
    });
    const deadlines = createDeadlines(ms, answer);
    const next = jest.fn() as unknown as NextFunction;
    const start = (res: FakeResponse) => deadlines({} as Request, res as unknown as Response, next);
    return { deadlines, answered, answer, start, next };
  }

  it('answers each request at its own deadline, in arrival order, and passes every request on at once', () => {
    const { start, answered, next } = setUp(1000);
    const first = response();
    start(first);
    jest.advanceTimersByTime(400);
    const second = response();
    start(second);
    expect(next).toHaveBeenCalledTimes(2);
    jest.advanceTimersByTime(599);
    expect(answered).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(answered).toEqual([first]);
    jest.advanceTimersByTime(399);
    expect(answered).toEqual([first]);
    jest.advanceTimersByTime(1);
    expect(answered).toEqual([first, second]);
  });

  it('never answers a response already answered or abandoned by its client', () => {
    const { start, answered, deadlines } = setUp(1000);
    const done = response();
    const gone = response();
    const waiting = response();
    for (const res of [done, gone, waiting]) start(res);
    done.headersSent = true;
    gone.destroyed = true;
    jest.advanceTimersByTime(1000);
    expect(answered).toEqual([waiting]);
    expect(deadlines.queued).toBe(0);
  });

  it('holds only the requests in flight when they finish in about arrival order', () => {
    const { start, deadlines } = setUp(30_000);
    const inFlight: FakeResponse[] = [];
    for (let i = 0; i < 10_000; i++) {
      const res = response();
      start(res);
      inFlight.push(res);
      // Three in flight at a time; the oldest finishes.
      if (inFlight.length > 3) inFlight.shift()!.headersSent = true;
    }
    expect(deadlines.queued).toBeLessThanOrEqual(4);
  });

  it('keeps a bounded few answered responses behind a slow one at the front, not every one since', () => {
    const { start, deadlines, answered } = setUp(30_000);
    const slow = response();
    start(slow);
    for (let i = 0; i < 10_000; i++) {
      const res = response();
      start(res);
      res.headersSent = true;
    }
    expect(deadlines.queued).toBeLessThanOrEqual(2 * 1 + 64 + 1);
    jest.advanceTimersByTime(30_000);
    expect(answered).toEqual([slow]);
    expect(deadlines.queued).toBe(0);
  });

  it('keeps its first deadline for a response that passes twice (a second mount of the same router)', () => {
    const { start, answered } = setUp(1000);
    const res = response();
    start(res);
    jest.advanceTimersByTime(600);
    start(res);
    jest.advanceTimersByTime(400);
    expect(answered).toEqual([res]);
    jest.advanceTimersByTime(1000);
    expect(answered).toEqual([res]);
  });

  it('closes the connection of a response whose answer throws, and still answers the ones after it', () => {
    const answered: FakeResponse[] = [];
    const deadlines = createDeadlines(1000, (_error, _req, res) => {
      if (answered.length === 0) {
        answered.push(res as unknown as FakeResponse);
        throw new Error('the host logger failed');
      }
      answered.push(res as unknown as FakeResponse);
      (res as unknown as FakeResponse).headersSent = true;
    });
    const [first, second] = [response(), response()];
    for (const res of [first, second]) deadlines({} as Request, res as unknown as Response, jest.fn());
    jest.advanceTimersByTime(1000);
    expect(first.destroyed).toBe(true);
    expect(answered).toEqual([first, second]);
    expect(deadlines.queued).toBe(0);
  });

  it('arms no timer while nothing is in flight, and one again for the next request', () => {
    const { start, answered } = setUp(1000);
    expect(jest.getTimerCount()).toBe(0);
    const first = response();
    start(first);
    expect(jest.getTimerCount()).toBe(1);
    first.headersSent = true;
    jest.advanceTimersByTime(1000);
    expect(jest.getTimerCount()).toBe(0);
    const second = response();
    start(second);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(1000);
    expect(answered).toEqual([second]);
  });
});
