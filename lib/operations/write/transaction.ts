// Multi-document transactions where the server has them: a replica set member or a mongos (a standalone
// server has none). Asked once per connection; multi-record writes store all their records in one, and
// every write does once a feature records changes at the seam (stored-change.ts).
import type { ClientSession, Connection } from 'mongoose';

const support = new WeakMap<Connection, Promise<boolean>>();

/** True when `connection`'s server runs transactions. */
export function supportsTransactions(connection: Connection): Promise<boolean> {
  let known = support.get(connection);
  if (!known) {
    known = askServer(connection);
    support.set(connection, known);
  }
  return known;
}

async function askServer(connection: Connection): Promise<boolean> {
  const admin = connection.db?.admin();
  if (!admin) return false;
  // `hello` from MongoDB 4.4 (5.0 drops isMaster's name from the docs, not the server); the older name for older servers.
  const reply = await admin.command({ hello: 1 }).catch(() => admin.command({ isMaster: 1 })).catch(() => undefined);
  if (!reply || reply.logicalSessionTimeoutMinutes === undefined) return false;
  return typeof reply.setName === 'string' || reply.msg === 'isdbgrid';
}

/**
 * Runs `work` in one transaction when the server has them (the driver retries it on a transient error, so
 * `work` starts from scratch each time), else runs it without a session.
 */
export async function inTransaction<T>(connection: Connection, work: (session?: ClientSession) => Promise<T>): Promise<T> {
  if (!(await supportsTransactions(connection))) return work();
  const session = await connection.startSession();
  try {
    let result!: T;
    await session.withTransaction(async () => {
      result = await work(session);
    });
    return result;
  } finally {
    await session.endSession();
  }
}
