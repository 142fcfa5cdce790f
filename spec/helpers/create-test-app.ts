// Builds a host Express app around contentRouter for HTTP tests: its own database, a stand-in
// for the host's auth (header X-Test-User: JSON user), and a host error handler that must never fire.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Connection } from 'mongoose';
import { contentRouter, type ContentConfig, type ContentRouter } from '../../lib';
import { closeTestConnection, openTestConnection } from './test-db';

export interface TestApp {
  app: Express;
  api: ContentRouter;
  connection: Connection;
  /** Errors that reached the host's error handler (should stay empty: the router answers its own). */
  hostErrors: unknown[];
  close(): Promise<void>;
}

export type TestConfig = Omit<ContentConfig, 'db'>;

/** Header value that makes the stand-in host auth set req.user. */
export function asUser(user: Record<string, unknown>): [string, string] {
  return ['X-Test-User', JSON.stringify(user)];
}

/** Mounts the router at `prefix` (default /api) on a fresh database and waits for api.ready. */
export async function createTestApp(
  config: TestConfig,
  options: { prefix?: string; connection?: Connection; requestTimeoutMS?: number | false } = {},
): Promise<TestApp> {
  const connection = options.connection ?? (await openTestConnection());
  const silent = { error: () => undefined, warn: () => undefined, info: () => undefined };
  let api: ContentRouter;
  try {
    const deadline = options.requestTimeoutMS === undefined ? {} : { requestTimeoutMS: options.requestTimeoutMS };
    api = contentRouter({ logger: silent, ...config, db: { connection, ...deadline } });
    await api.ready;
  } catch (error) {
    // A config the test expects to be refused must not leave its database connection open.
    if (!options.connection) await closeTestConnection(connection);
    throw error;
  }
  const app = express();
  const hostErrors: unknown[] = [];
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const header = req.header('x-test-user');
    if (header) (req as Request & { user?: unknown }).user = JSON.parse(header);
    next();
  });
  app.use(options.prefix ?? '/api', api);
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    hostErrors.push(error);
    res.status(599).json({ hostHandler: true });
  });
  return {
    app,
    api,
    connection,
    hostErrors,
    async close() {
      await api.close();
      if (!options.connection) await closeTestConnection(connection);
    },
  };
}
