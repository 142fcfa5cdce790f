// Lifecycle: the router's own connection from db.uri, the global default connection left alone,
// indexes built by api.ready, and a 503 (not a 500, not a crash) when the database is unreachable.
import express from 'express';
import mongoose from 'mongoose';
import request from 'supertest';
import { contentRouter } from '../../lib';
import { testDbUri, uniqueDbName } from '../helpers/test-db';

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined };
const collections = [{ slug: 'things', fields: { code: { type: 'text' as const, unique: true }, n: { type: 'number' as const, index: true } } }];

it('opens its own connection from db.uri, builds indexes on ready, closes it on close()', async () => {
  const dbName = uniqueDbName();
  const api = contentRouter({ db: { uri: testDbUri(), options: { dbName } }, collections, logger: silent });
  await api.ready;
  const own = mongoose.connections.find((c) => c.name === dbName);
  expect(own?.readyState).toBe(mongoose.ConnectionStates.connected);
  const indexes = await own!.collection('things').indexes();
  expect(indexes).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ key: { code: 1 }, unique: true }),
      expect.objectContaining({ key: { n: 1 } }),
      expect.objectContaining({ key: { createdAt: -1, _id: -1 } }),
    ]),
  );
  expect(mongoose.connection.readyState).toBe(mongoose.ConnectionStates.disconnected);
  expect(Object.keys(mongoose.models).filter((m) => m.startsWith('content-router'))).toEqual([]);
  await own!.dropDatabase();
  await api.close();
  expect(own!.readyState).toBe(mongoose.ConnectionStates.disconnected);
  await api.close(); // idempotent
});

it('answers 503 problem+json when the database is unreachable, and ready rejects without crashing the host', async () => {
  const errors: unknown[] = [];
  const api = contentRouter({
    db: { uri: 'mongodb://127.0.0.1:9/unreachable', options: { serverSelectionTimeoutMS: 200, bufferCommands: false } },
    collections,
    logger: { ...silent, error: (...args: unknown[]) => errors.push(args) },
  });
  await expect(api.ready).rejects.toThrow();
  const app = express();
  app.use((req, _res, next) => {
    (req as unknown as { user: unknown }).user = { id: '000000000000000000000001' };
    next();
  });
  app.use('/api', api);
  const res = await request(app).get('/api/things');
  expect(res.status).toBe(503);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable' });
  expect(JSON.stringify(res.body)).not.toContain('127.0.0.1');
  expect(errors.length).toBeGreaterThan(0);
  await api.close();
});

it('logs a start against an unreachable database as one line: what failed and where, without credentials', async () => {
  const lines: unknown[][] = [];
  const record = (...args: unknown[]) => void lines.push(args);
  const api = contentRouter({
    db: { uri: 'mongodb://editor:s3cret@127.0.0.1:1/unreachable?authSource=admin', options: { serverSelectionTimeoutMS: 200 } },
    collections,
    logger: { error: record, warn: record, info: record },
  });
  await expect(api.ready).rejects.toThrow();
  await api.close();
  // Whatever else is logged (the outage's own line) is a line of text too: no error object to expand.
  for (const args of lines) expect(args).toEqual([expect.not.stringContaining('\n')]);
  const startup = lines.filter((args) => String(args[0]).includes('startup failed'));
  expect(startup).toHaveLength(1);
  // One string argument, one line: a host's log shows it whole, not a topology dump.
  expect(startup[0]).toHaveLength(1);
  const [line] = startup[0] as [string];
  expect(line).not.toContain('\n');
  expect(line).toMatch(/ServerSelectionError: .+/);
  expect(line).toContain('mongodb://127.0.0.1:1/unreachable');
  expect(line).not.toContain('s3cret');
  expect(line).not.toContain('editor');
});
