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

  // A slow request, then a long run of quick ones answered behind it: the bound follows the requests waiting
  // now (one), whatever came before, including a burst long gone that once grew the queue (its last sweep
  // found nothing to drop).
  it.each([
    ['from a quiet start', 0],
    ['after a burst of 10,000 waiting at once has come and gone', 10_000],
  ])('keeps a bounded few answered responses behind a slow one at the front, not every one since, %s', (_when, burstSize) => {
    const { start, deadlines, answered } = setUp(30_000);
    const burst = Array.from({ length: burstSize }, () => response());
    for (const res of burst) start(res);
    for (const res of burst) res.headersSent = true;
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

  it('answers exactly the responses left waiting past their deadline, each once and in order, over a random run', () => {
    const ms = 1000;
    const { start, deadlines, answered } = setUp(ms);
    // A seeded generator (mulberry32), so a failure replays.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const started: Array<{ res: FakeResponse; due: number }> = [];
    const stillOpen = () => started.filter(({ res }) => !res.headersSent && !res.destroyed);
    let now = 0;
    let peakWaiting = 0;
    for (let step = 0; step < 4000; step++) {
      const roll = random();
      const open = stillOpen();
      if (roll < 0.45) {
        const res = response();
        start(res);
        started.push({ res, due: now + ms });
      } else if (roll < 0.7 && open.length > 0) {
        open[Math.floor(random() * open.length)].res.headersSent = true;
      } else if (roll < 0.75 && open.length > 0) {
        open[Math.floor(random() * open.length)].res.destroyed = true;
      } else {
        const by = Math.floor(random() * 400);
        // What must be answered by then: the ones still open whose deadline falls within the step.
        const due = open.filter(({ due: at }) => at <= now + by).map(({ res }) => res);
        const before = answered.length;
        jest.advanceTimersByTime(by);
        now += by;
        expect(answered.slice(before)).toEqual(due);
      }
      const waiting = stillOpen().length;
      peakWaiting = Math.max(peakWaiting, waiting);
      // Answered ones are dropped lazily, but never more kept than twice the most ever waiting, plus slack.
      expect(deadlines.queued).toBeLessThanOrEqual(2 * peakWaiting + 65);
    }
    expect(new Set(answered).size).toBe(answered.length);
    jest.advanceTimersByTime(ms);
    expect(stillOpen()).toEqual([]);
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
