// The request lifecycle, on Fastify's model: named phases, each an ordered list of hooks that the core and
// the features add to the same way, composed into one chain per route at start-up and run by one runner
// (for plain requests and upgrades alike): onRequest, parse, preHandler, the route's handler, onSend (its
// answer, before it is written), and onError or onLeave. Application hooks: onRoute for each route added
// to the table, onReady with api.ready, onClose with api.close(). What a request carries through its phases
// is its request state (operations/request-state.ts), made by the dispatcher as the request comes in.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { RouteDef } from './route-table';
import { requestState, runAs } from '../operations/request-state';
import { type AnswerWatcher, handled, watchAnswer } from './send-phase';

/** The request phases before the handler, in the order they run. */
export const REQUEST_PHASES = ['onRequest', 'parse', 'preHandler'] as const;
export type RequestPhase = (typeof REQUEST_PHASES)[number];

/**
 * A hook of a request phase: called once per route at start-up, it returns the handler that route's
 * requests run in this phase, or undefined when the route has nothing to do there (a GET never pays for a
 * body parser, a static route for the database gate).
 */
export type RouteHook = (route: RouteDef) => RequestHandler | undefined;

/**
 * A hook of `onSend`: called once per route at start-up, it returns what each request of that route runs
 * just before the route's handler: the watcher of that request's answer (send-phase.ts), or undefined when
 * it has nothing to watch there (a request without an Idempotency-Key). Undefined for a route it never watches.
 */
export type SendHook = (route: RouteDef) => ((req: Request, res: Response) => AnswerWatcher | undefined) | undefined;

/** A hook of `onError`: answers the error, or passes it (or another) on with next(error). */
export type ErrorHook = ErrorRequestHandler;

/** A hook of `onLeave`. */
export type LeaveHook = (req: Request, res: Response) => void;

export interface Lifecycle {
  /** First, before any work on the request: refusals that need nothing but the request (outage, rate limit). */
  readonly onRequest: RouteHook[];
  /** Reads the body by the route's declared type (JSON, a multipart form); a route without one skips it. */
  readonly parse: RouteHook[];
  /** After the body is read, before the handler: checks that need the body, the request deadline. */
  readonly preHandler: RouteHook[];
  /**
   * Once the route's handler has produced its answer, before it is written: a feature that must see or keep
   * the answer (the Idempotency-Key's stored answer) watches it here, never by wrapping the handler.
   */
  readonly onSend: SendHook[];
  /** An error of any phase, of the handler, or of the dispatcher (404, 405): answered here, in order. */
  readonly onError: ErrorHook[];
  /**
   * A request leaves the router unanswered: its handler passed it on to the host with next() (a function
   * endpoint), or no error hook could answer its error. Called in order before the host's next handler:
   * what the router still holds for the request (its deadline) ends here.
   */
  readonly onLeave: LeaveHook[];
  /** Called for every route as it joins the route table, in table order. */
  readonly onRoute: Array<(route: RouteDef) => void>;
  /** Part of api.ready, in order: run after the connection is open and the models' indexes are built. */
  readonly onReady: Array<() => Promise<void>>;
  /** Part of api.close(), in reverse order (what started first stops last): streams, sockets, timers. */
  readonly onClose: Array<() => void | Promise<void>>;
}

export function createLifecycle(): Lifecycle {
  return { onRequest: [], parse: [], preHandler: [], onSend: [], onError: [], onLeave: [], onRoute: [], onReady: [], onClose: [] };
}

/**
 * What a request of one route runs: its phases' handlers (`steps`), then its `handler` with the watchers
 * `onSend` opens for it, on an error `onError`, and `onLeave` when it goes on to the host. An upgrade's
 * chain has no handler (the route's `upgrade` takes over once the phases let it through).
 */
export interface RouteChain {
  readonly steps: readonly RequestHandler[];
  readonly handler?: RequestHandler;
  readonly onSend: ReadonlyArray<(req: Request, res: Response) => AnswerWatcher | undefined>;
  readonly onError: readonly ErrorHook[];
  readonly onLeave: readonly LeaveHook[];
}

/** The handlers the request phases give `route`, in phase order (the route's handler not included). */
function phaseHandlers(lifecycle: Pick<Lifecycle, RequestPhase>, route: RouteDef): RequestHandler[] {
  return REQUEST_PHASES.flatMap((phase) => lifecycle[phase].flatMap((hook) => hook(route) ?? []));
}

/** The chain of `route`, composed once at start-up: every request of the route runs it as it is. */
export function composeRoute(lifecycle: Pick<Lifecycle, RequestPhase | 'onSend' | 'onError' | 'onLeave'>, route: RouteDef): RouteChain {
  return {
    steps: phaseHandlers(lifecycle, route),
    handler: route.handler as RequestHandler,
    onSend: lifecycle.onSend.flatMap((hook) => hook(route) ?? []),
    onError: [...lifecycle.onError],
    onLeave: [...lifecycle.onLeave],
  };
}

/**
 * Runs the route's handler: with the watchers the onSend hooks open for this request, if any, watching its
 * answer, and told when the handler has returned.
 */
function runHandler(chain: RouteChain, handler: RequestHandler, req: Request, res: Response, next: NextFunction): unknown {
  if (chain.onSend.length === 0) return handler(req, res, next);
  const watchers = chain.onSend.flatMap((open) => open(req, res) ?? []);
  if (watchers.length === 0) return handler(req, res, next);
  watchAnswer(req, res, watchers);
  // Run as the request's work: a write its handler makes through a call naming no request still counts.
  return Promise.resolve(runAs(requestState(req), () => handler(req, res, next))).then(() => handled(watchers));
}

function isFailure(error: unknown): boolean {
  return error !== undefined && error !== null && error !== 'route';
}

/**
 * The one chain runner, with Express's semantics: steps run in order while each calls next(); the first
 * error (thrown, rejected or passed to next) moves to the error hooks, each of which answers or passes an
 * error on. `done` gets what is left, after the `onLeave` hooks: nothing when the last step called next()
 * (the request goes on to the host), the error when no error hook answered it. `error`: start with the
 * error hooks (a 404 of the dispatcher, a refused upgrade).
 */
export function runChain(chain: RouteChain, req: Request, res: Response, done: NextFunction, error?: unknown): void {
  let index = 0;
  let failing = false;
  let failure: unknown;
  const leave = (left?: unknown): void => {
    for (const hook of chain.onLeave) hook(req, res);
    done(left);
  };
  const next: NextFunction = (problem?: unknown) => {
    if (isFailure(problem)) {
      if (!failing) index = 0;
      failing = true;
      failure = problem;
    } else if (failing) {
      // An error hook called next() without an error: the error is dealt with.
      leave();
      return;
    }
    try {
      let result: unknown;
      if (failing) {
        const hook = chain.onError.at(index++);
        if (!hook) {
          leave(failure);
          return;
        }
        result = hook(failure, req, res, next);
      } else if (index < chain.steps.length) {
        result = chain.steps[index++](req, res, next);
      } else if (index === chain.steps.length && chain.handler) {
        index++;
        result = runHandler(chain, chain.handler, req, res, next);
      } else {
        leave();
        return;
      }
      if (result && typeof (result as Promise<void>).then === 'function') (result as Promise<void>).then(undefined, next);
    } catch (thrown) {
      next(thrown);
    }
  };
  next(error);
}
