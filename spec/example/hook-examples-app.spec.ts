// `HOOK_EXAMPLES=1 npm start`: the example app with the worked examples of docs/hooks.md, loaded from the
// page itself, answers as the page says (a slug and a reading time on a new post).
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example app is plain CommonJS JavaScript, without typings
const { createExampleApp } = require('../../example-app/app.js') as {
  createExampleApp(args: { connection: Connection; seed?: boolean; hookExamples?: boolean }): Promise<{ app: Express; api: { close(): Promise<void> } }>;
};

let connection: Connection;
let example: Awaited<ReturnType<typeof createExampleApp>>;
const previousSecret = process.env.JWT_SECRET;

beforeAll(async () => {
  process.env.JWT_SECRET = 'hook-examples-app-secret-0123456789abcdef';
  connection = await openTestConnection();
  example = await createExampleApp({ connection, seed: false, hookExamples: true });
});
afterAll(async () => {
  await example?.api.close();
  await closeTestConnection(connection);
  process.env.JWT_SECRET = previousSecret;
});

it('runs the page\'s examples: a new post gets its slug and reading time', async () => {
  const res = await request(example.app).post('/api/posts').set('X-Demo-User', 'alice').send({ title: 'Hello Hooks World', body: 'one two three' });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ slug: 'hello-hooks-world', readingTime: 1 });
});
