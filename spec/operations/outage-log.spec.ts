// The outage log's folding, on a clock the test controls: the first failure of each kind is a line, the rest
// are counted and summed up when the connection is back, at close, and at most once a minute meanwhile.
import { FOLD_MS, createOutageLog } from '../../lib/operations/outage-log';
import { DatabaseTimeoutError } from '../../lib/errors';

type Level = 'error' | 'warn' | 'info' | 'debug';

function logged() {
  const lines: Record<Level, string[]> = { error: [], warn: [], info: [], debug: [] };
  const record = (level: Level) => (...args: unknown[]) => void lines[level].push(args.map(String).join(' '));
  return { lines, logger: { error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') } };
}

const lost = Object.assign(new Error('connection 4 to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' });

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('logs the first timeout, counts the rest, sums them up once a minute while they go on, and ends after a quiet minute', () => {
  const { lines, logger } = logged();
  const log = createOutageLog(logger);
  for (let i = 0; i < 100; i++) log.timedOut(`GET /api/posts/${i}`, new DatabaseTimeoutError(30_000));
  expect(lines.warn).toEqual([expect.stringMatching(/^content-router: GET \/api\/posts\/0: The database did not answer within 30 s\. /)]);

  log.timedOut('GET /api/posts', new DatabaseTimeoutError(30_000));
  jest.advanceTimersByTime(FOLD_MS);
  expect(lines.warn.slice(1)).toEqual(['content-router: 100 more requests were answered 503 database_timeout: the database did not answer in time.']);
  // The fold goes on: one more within the next minute is counted, then summed up.
  log.timedOut('GET /api/posts', new DatabaseTimeoutError(30_000));
  jest.advanceTimersByTime(FOLD_MS);
  expect(lines.warn.slice(2)).toEqual(['content-router: 1 more request was answered 503 database_timeout: the database did not answer in time.']);
  // A quiet minute ends it: the next timeout is a line of its own.
  jest.advanceTimersByTime(FOLD_MS);
  expect(lines.warn).toHaveLength(3);
  log.timedOut('GET /api/later', new DatabaseTimeoutError(30_000));
  expect(lines.warn[3]).toMatch(/^content-router: GET \/api\/later: The database did not answer/);
  expect({ error: lines.error, info: lines.info, debug: lines.debug }).toEqual({ error: [], info: [], debug: [] });
  log.close();
});

it('sums up every kind when the connection is back (failures before and during the outage are one episode), then logs the next failure in full', () => {
  const { lines, logger } = logged();
  const log = createOutageLog(logger);
  for (let i = 0; i < 5; i++) log.failed('GET /api/posts', lost);
  for (let i = 0; i < 3; i++) log.recheckFailed(lost);
  log.changed(false);
  log.failed('GET /api/posts', lost);
  expect(lines.error).toEqual(['content-router: the database is unreachable; routes that need it answer 503 until it is back.']);
  expect(lines.warn).toEqual([
    expect.stringMatching(/^content-router: GET \/api\/posts: the database could not be reached \(MongoNetworkError: connection 4 to 127\.0\.0\.1:27017 closed\); answered 503\./),
    expect.stringMatching(/^content-router: a realtime credential check could not reach the database \(MongoNetworkError: /),
  ]);
  log.changed(true);
  expect(lines.warn.slice(2)).toEqual([
    'content-router: 5 more requests were answered 503: the database could not be reached.',
    'content-router: 2 more realtime credential checks could not reach the database.',
  ]);
  expect(lines.info).toEqual(['content-router: the database is reachable again; requests are served.']);
  log.recheckFailed(lost);
  expect(lines.warn[4]).toMatch(/^content-router: a realtime credential check could not reach the database/);
  log.close();
});

it('sums up what it still counts at close, and leaves no timer behind', () => {
  const { lines, logger } = logged();
  const log = createOutageLog(logger);
  log.failed('GET /api/posts', lost);
  log.failed('GET /api/posts', lost);
  log.close();
  expect(lines.warn).toEqual([expect.any(String), 'content-router: 1 more request was answered 503: the database could not be reached.']);
  expect(jest.getTimerCount()).toBe(0);
});
