// The request deadline, without HTTP: a request still unanswered after the deadline is answered once,
// an answered or abandoned one never, and nothing is held once the response closes.
import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { createDeadline } from '../../lib/http/database-gate';

class FakeResponse extends EventEmitter {
  /** Its request: the deadline is kept in the request's state. */
  readonly req = {} as Request;
  headersSent = false;
  destroyed = false;
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('the request deadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setUp(ms = 1000) {
    const answered: FakeResponse[] = [];
    const answer = jest.fn((error: Error, _req: Request, res: Response) => {
      expect(error).toMatchObject({ status: 503, code: 'database_timeout' });
      answered.push(res as unknown as FakeResponse);
      (res as unknown as FakeResponse).headersSent = true;
    });
    const deadline = createDeadline(ms, answer);
    const next = jest.fn() as unknown as NextFunction;
    const start = (res: FakeResponse) => deadline.start(res.req, res as unknown as Response, next);
    const release = (res: FakeResponse) => deadline.release(res.req, res as unknown as Response);
    return { answered, start, release, next };
  }

  it('answers each request at its own deadline and passes every request on at once', () => {
    const { start, answered, next } = setUp(1000);
    const first = new FakeResponse();
    start(first);
    jest.advanceTimersByTime(400);
    const second = new FakeResponse();
    start(second);
    expect(next).toHaveBeenCalledTimes(2);
    jest.advanceTimersByTime(599);
    expect(answered).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(answered).toEqual([first]);
    jest.advanceTimersByTime(400);
    expect(answered).toEqual([first, second]);
  });

  it('never answers a response already answered or abandoned by its client', () => {
    const { start, answered } = setUp(1000);
    const [done, gone, waiting] = [new FakeResponse(), new FakeResponse(), new FakeResponse()];
    for (const res of [done, gone, waiting]) start(res);
    done.headersSent = true;
    gone.destroyed = true;
    jest.advanceTimersByTime(1000);
    expect(answered).toEqual([waiting]);
  });

  it('holds no timer for a response once it has closed', () => {
    const { start } = setUp(30_000);
    const responses = Array.from({ length: 100 }, () => new FakeResponse());
    for (const res of responses) start(res);
    expect(jest.getTimerCount()).toBe(100);
    for (const res of responses) res.emit('close');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('ends the deadline of a request passed on to the host, and holds nothing for it', () => {
    const { start, release, answered } = setUp(1000);
    const [passed, kept] = [new FakeResponse(), new FakeResponse()];
    start(passed);
    start(kept);
    release(passed);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(1000);
    expect(answered).toEqual([kept]);
  });

  it('keeps its first deadline for a response that passes twice (a second mount of the same router)', () => {
    const { start, answered } = setUp(1000);
    const res = new FakeResponse();
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
    const deadline = createDeadline(1000, (_error, _req, res) => {
      answered.push(res as unknown as FakeResponse);
      if (answered.length === 1) throw new Error('the host logger failed');
      (res as unknown as FakeResponse).headersSent = true;
    });
    const [first, second] = [new FakeResponse(), new FakeResponse()];
    for (const res of [first, second]) deadline.start({} as Request, res as unknown as Response, jest.fn());
    jest.advanceTimersByTime(1000);
    expect(first.destroyed).toBe(true);
    expect(answered).toEqual([first, second]);
  });
});
