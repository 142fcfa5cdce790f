// Fails fast during a database outage: a route that needs the database answers 503 at once while the
// connection is known to be down, instead of waiting for server selection, and recovers when it is back.
import type { RequestHandler } from 'express';
import mongoose, { type Connection } from 'mongoose';
import { ServiceUnavailableError } from '../errors';
import type { RouteMiddleware } from './dispatch';

/** Refused before any work: unlike a connection lost mid-request, this 503 guarantees nothing was written. */
const REFUSED = 'The database is unavailable; the request was not processed. Try again shortly.';

/** At most one recovery probe per this many ms, however many requests are refused meanwhile. */
const PROBE_INTERVAL_MS = 1000;

/**
 * Connection states in which a request goes ahead. `connecting` is only the first connect (Mongoose
 * buffers commands until it opens, bounded by bufferTimeoutMS); once open, Mongoose reports a lost server as
 * `disconnected` (a standalone whose monitor marked it Unknown, a replica set without a primary) and
 * `connected` again when the driver's monitor reaches it. Sharded and load-balanced topologies stay
 * `connected`: there the driver's own timeouts bound the wait.
 */
const SERVING = new Set<number>([mongoose.ConnectionStates.connected, mongoose.ConnectionStates.connecting]);

/**
 * Route middleware refusing database routes (every route but those declaring `database: false`) with a
 * 503 while the connection is down. Refusing before any work also means no write of this request can
 * land later. While it refuses, it pings now and then: a pending server selection makes the driver check
 * the server every 500 ms instead of every heartbeatFrequencyMS (10 s by default), so service resumes
 * soon after the database does.
 */
export function createDatabaseGate(connection: Connection): RouteMiddleware {
  let probing = false;
  let lastProbe = 0;
  const probe = () => {
    const db = connection.db;
    if (probing || !db || Date.now() - lastProbe < PROBE_INTERVAL_MS) return;
    probing = true;
    lastProbe = Date.now();
    // Its outcome does not matter: the driver's monitor flips readyState back when the server answers.
    db.command({ ping: 1 }).then(
      () => (probing = false),
      () => (probing = false),
    );
  };
  const gate: RequestHandler = (_req, _res, next) => {
    if (SERVING.has(connection.readyState)) return next();
    probe();
    next(new ServiceUnavailableError(REFUSED));
  };
  return (route) => (route.database === false ? undefined : gate);
}
