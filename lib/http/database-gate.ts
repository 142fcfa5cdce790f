// Fails fast during a database outage: a route that needs the database answers 503 at once while the
// connection is known to be down, instead of waiting for server selection, and recovers when it is back.
// The outage is logged once each way (operations/outage-log.ts), never once per refused request.
import type { Request, RequestHandler, Response } from 'express';
import mongoose, { type Connection } from 'mongoose';
import { DatabaseDownError, DatabaseTimeoutError } from '../errors';
import type { LeaveHook, RouteHook } from './lifecycle';
import type { OutageLog } from '../operations/outage-log';
import { requestState } from '../operations/request-state';

declare module '../operations/request-state' {
  interface RequestState {
    /** The request deadline's timer, from the preHandler that starts it until the request ends or leaves the router. */
    deadline?: NodeJS.Timeout;
  }
}

declare module './route-table' {
  interface RouteConfig {
    /**
     * `false`: the route never touches the database (a static document), so it is served during an outage
     * and has no deadline. Default true: while the connection is down the route answers 503 with
     * `Retry-After` before any work.
     */
    database?: boolean;
    /**
     * `false`: no request deadline, for a route whose handler reads its body at the client's pace (a
     * streamed upload). Default true for database routes.
     */
    deadline?: boolean;
  }
}

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
  /** Where the connection going down and coming back is logged; none: not logged. */
  outage?: OutageLog;
}

export interface DatabaseGate {
  /** The onRequest hook, for every route but those whose config says `database: false`: refuses during an outage. */
  onRequest: RouteHook;
  /**
   * The preHandler hook starting the request deadline once the body is read (a slow client's upload of
   * its JSON is not a database wait). Not on routes whose config says `deadline: false`, nor on upgrades.
   */
  deadline: RouteHook;
  /** The onLeave hook ending the deadline of a request passed on to the host. */
  leave: LeaveHook;
  /** Stops listening to the connection. */
  close(): void;
}

/** The request deadline: the preHandler that starts it, and the onLeave hook that ends it early. */
export interface Deadline {
  start: RequestHandler;
  /** Ends the deadline of a request the router passes on to the host: the host answers it in its own time. */
  release: LeaveHook;
}

/**
 * A request still unanswered `ms` after its deadline started is answered 503 `database_timeout`. A bound
 * on the wait, not a cancellation: the driver cannot take back a command already sent, so the answer says
 * a write may have been applied. Without it, a command the driver loses track of (a socket closed while
 * it waits to drain) would hold the request forever.
 */
export function createDeadline(ms: number, answer: DatabaseGateOptions['answer']): Deadline {
  const release = (req: Request): void => {
    const state = requestState(req);
    clearTimeout(state.deadline);
    state.deadline = undefined;
  };
  const start: RequestHandler = (req, res, next) => {
    const state = requestState(req);
    // A request passing twice (a router mounted twice) keeps its first deadline.
    if (!state.deadline) {
      const timer = setTimeout(() => {
        state.deadline = undefined;
        // Answered (the deadline no longer applies once headers are out) or abandoned by the client.
        if (res.headersSent || res.destroyed) return;
        try {
          answer(new DatabaseTimeoutError(ms), req, res);
        } catch {
          // The answer failed (a host logger that throws): close the connection rather than leave the client
          // waiting, and never throw from a timer, which would crash the host's process.
          res.destroy();
        }
      }, ms);
      // Open requests keep the process alive through their sockets; the timer need not.
      timer.unref();
      state.deadline = timer;
      res.once('close', () => release(req));
    }
    next();
  };
  return { start, release };
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
  /** Set by connection.close(), which starts with `disconnecting`: the down that follows is no outage. */
  let closing = false;
  /**
   * Whether the connection ever connected. One whose first attempt failed is no outage the router recovers
   * from (Mongoose does not reconnect it): the failed start is logged by `api.ready`'s rejection instead.
   */
  let connectedOnce = connection.readyState === mongoose.ConnectionStates.connected;
  const follow = (event: string, serving: boolean) => {
    if (event === 'disconnecting') closing = true;
    else if (serving) closing = false;
    if (event === 'connected') connectedOnce = true;
    if (serving === up) return;
    up = serving;
    if (!closing && connectedOnce) options.outage?.changed(up);
  };
  const listeners = STATE_EVENTS.map(([event, serving]) => [event, () => follow(event, serving)] as const);
  for (const [event, listener] of listeners) connection.on(event, listener);

  let probing = false;
  // A pace, not a date: measured on Node's monotonic clock, as the timers it stands beside.
  let lastProbe = -Infinity;
  const probe = () => {
    const db = connection.db;
    if (probing || !db || performance.now() - lastProbe < PROBE_INTERVAL_MS) return;
    probing = true;
    lastProbe = performance.now();
    // Its outcome does not matter: the driver's monitor flips the state back when the server answers.
    db.command({ ping: 1 }).then(
      () => (probing = false),
      () => (probing = false),
    );
  };
  const gate: RequestHandler = (_req, _res, next) => {
    if (up) {
      next();
      return;
    }
    probe();
    // Unlike a connection lost mid-request, this 503 guarantees nothing was written.
    next(new DatabaseDownError());
  };
  const limit = options.requestTimeoutMS;
  const deadline = limit === false ? undefined : createDeadline(limit, options.answer);
  return {
    onRequest: (route) => (route.config?.database === false ? undefined : gate),
    // Not on upgrades: the 101 is written on the raw socket, never through the response.
    deadline: (route) => (route.config?.database === false || route.config?.deadline === false || route.upgrade ? undefined : deadline?.start),
    leave: deadline ? deadline.release : () => undefined,
    close() {
      for (const [event, listener] of listeners) connection.off(event, listener);
      // Requests still in flight keep their deadlines; the timers are unref'd, so a hung request does not
      // hold up a graceful shutdown.
    },
  };
}
