// A start against an unreachable database is logged as what it is: a failed start the router does not
// retry. The outage line ("routes answer 503 until it is back") would promise a recovery that never comes
// (Mongoose does not reconnect a connection whose first attempt failed), so it is not logged for a
// connection that never connected; the startup line says what to do instead.
import mongoose from 'mongoose';
import { contentRouter } from '../../lib';

const collections = [{ slug: 'things', fields: { code: { type: 'text' as const } } }];

function recordingLogger() {
  const lines: string[] = [];
  const record = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  return { lines, logger: { error: record, warn: record, info: record } };
}

it('a start that fails on its own connection logs no promise of recovery, and says the app must be restarted', async () => {
  const { lines, logger } = recordingLogger();
  const api = contentRouter({ db: { uri: 'mongodb://127.0.0.1:1/unreachable', options: { serverSelectionTimeoutMS: 200 } }, collections, logger, warnings: { unindexedSorts: false } });
  await expect(api.ready).rejects.toThrow();
  await api.close();
  expect(lines.filter((line) => line.includes('until it is back'))).toEqual([]);
  const startup = lines.filter((line) => line.includes('startup failed'));
  expect(startup).toHaveLength(1);
  expect(startup[0]).toMatch(/not retried.*restart/);
});

it('a start that fails on the host connection logs no promise of recovery either', async () => {
  const { lines, logger } = recordingLogger();
  const connection = mongoose.createConnection('mongodb://127.0.0.1:1/unreachable', { serverSelectionTimeoutMS: 200 });
  connection.on('error', () => undefined);
  const api = contentRouter({ db: { connection }, collections, logger, warnings: { unindexedSorts: false } });
  await expect(api.ready).rejects.toThrow();
  await api.close();
  await connection.close().catch(() => undefined);
  expect(lines.filter((line) => line.includes('until it is back'))).toEqual([]);
  expect(lines.filter((line) => line.includes('startup failed'))).toHaveLength(1);
});
