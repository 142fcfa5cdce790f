// Fails fast during a database outage: a route that needs the database answers 503 at once while the
// connection is known to be down, instead of waiting for server selection, and recovers when it is back.
import type { Request, RequestHandler, Response } from 'express';
import mongoose, { type Connection } from 'mongoose';
import { DatabaseTimeoutError, ServiceUnavailableError } from '../errors';
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

/** The events Mongoose emits on each state change, and whether requests go ahead in that state. */
const STATE_EVENTS: ReadonlyArray<[string, boolean]> = [
  ['connected', true],
  ['connecting', true],
  ['disconnected', false],
  ['disconnecting', false],
  ['close', false],
];

export interface DatabaseGateOptions {
  /** Longest wait for a database route before it is answered with a 503 `database_timeout`; false: none. */
  requestTimeoutMS: number | false;
  /** Answers a request with an error (the router's error handler), outside the route's own chain. */
  answer: (error: Error, req: Request, res: Response) => void;
}

export interface DatabaseGate {
  /** Route middleware for every route but those declaring `database: false`: refuses during an outage. */
  middleware: RouteMiddleware;
  /**
   * Route middleware starting the request deadline, to run once the body is read (a slow client's upload
   * of its JSON is not a database wait). Not on uploads, which stream at the client's pace, nor upgrades.
   */
  deadline: RouteMiddleware;
  /** Stops listening to the connection. */
  close(): void;
}

/**
 * A bound on the wait, not a cancellation: the driver cannot take back a command already sent, so the
 * answer says a write may have been applied. Without it, a command the driver loses track of (a socket
 * closed while it waits to drain) would hold the request forever.
 * One timer serves every request of the router: all deadlines are the same length, so the requests in
 * flight, kept in arrival order, are also in deadline order, and the timer only ever waits for the first.
 * A request adds a set entry and a shared 'close' listener, never a timer of its own.
 */
function createDeadlines(ms: number, answer: DatabaseGateOptions['answer']): RequestHandler {
  // When a response in flight is due (performance.now() ms). A property: a WeakMap entry per request costs
  // every GC. One key per router: a response a router passes on (a custom endpoint calling next()) may
  // reach another router's deadline too, and each set must keep its own due times in order.
  const DUE = Symbol('content-router.due');
  type InFlight = Response & { [DUE]: number };
  const inFlight = new Set<InFlight>();
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const first = inFlight.values().next();
    timer = first.done ? undefined : setTimeout(expire, Math.max(0, first.value[DUE] - performance.now()));
    // Open requests keep the process alive through their sockets; the timer need not.
    timer?.unref();
  };
  function expire(): void {
    const now = performance.now();
    for (const res of inFlight) {
      if (res[DUE] > now) break;
      inFlight.delete(res);
      if (res.headersSent) continue;
      try {
        answer(new DatabaseTimeoutError(ms), res.req, res);
      } catch {
        // The answer failed (a host logger that throws): close the connection rather than leave the client
        // waiting, and never throw from a timer, which would crash the host's process and end every other
        // request's deadline with it.
        res.destroy();
      }
    }
    arm();
  }
  // A response emits 'close' once it has finished or its connection has gone, whichever comes first.
  function finished(this: InFlight): void {
    inFlight.delete(this);
  }
  return (_req, res, next) => {
    // A response already in flight here keeps its first deadline (and its place in arrival order).
    if (!inFlight.has(res as InFlight)) {
      (res as InFlight)[DUE] = performance.now() + ms;
      inFlight.add(res as InFlight);
      res.on('close', finished);
      if (!timer) arm();
    }
    next();
  };
}

/**
 * Refuses database routes with a 503 while the connection is down. Refusing before any work also means
 * no write of this request can land later. The state is followed through the connection's events rather
 * than read from `readyState`, whose getter also reports `disconnected` when heartbeats are merely late
 * (a busy server or a blocked event loop), which is no reason to refuse. While it refuses, it pings now
 * and then: a pending server selection makes the driver check the server every 500 ms instead of every
 * heartbeatFrequencyMS (10 s by default), so service resumes soon after the database does.
 */
export function createDatabaseGate(connection: Connection, options: DatabaseGateOptions): DatabaseGate {
  let up = SERVING.has(connection.readyState);
  const listeners = STATE_EVENTS.map(([event, serving]) => [event, () => (up = serving)] as const);
  for (const [event, listener] of listeners) connection.on(event, listener);

  let probing = false;
  let lastProbe = 0;
  const probe = () => {
    const db = connection.db;
    if (probing || !db || Date.now() - lastProbe < PROBE_INTERVAL_MS) return;
    probing = true;
    lastProbe = Date.now();
    // Its outcome does not matter: the driver's monitor flips the state back when the server answers.
    db.command({ ping: 1 }).then(
      () => (probing = false),
      () => (probing = false),
    );
  };
  const gate: RequestHandler = (_req, _res, next) => {
    if (up) return next();
    probe();
    next(new ServiceUnavailableError(REFUSED));
  };
  // Uploads stream at the client's pace: they get no deadline.
  const limit = options.requestTimeoutMS;
  const deadline = limit === false ? undefined : createDeadlines(limit, options.answer);
  return {
    middleware: (route) => (route.database === false ? undefined : gate),
    // Not on upgrades either: the 101 is written on the raw socket, never through the response.
    deadline: (route) => (route.database === false || route.body?.type === 'multipart' || route.upgrade ? undefined : deadline),
    close() {
      for (const [event, listener] of listeners) connection.off(event, listener);
      // Requests still in flight keep their deadlines: a hung one must not hold up a graceful shutdown.
      // The timer is unref'd and stops by itself once the last of them is answered.
    },
  };
}
