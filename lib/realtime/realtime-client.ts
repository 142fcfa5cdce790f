// One connected realtime client, whatever its transport: who it is, what it may read (a matcher per
// collection, re-checked periodically and when its user changes), and which events reach it.
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { ContentError, ForbiddenError, QueryError, UnauthorizedError } from '../errors';
import { isDatabaseUnavailable } from '../http/to-problem';
import type { Runtime } from '../operations/runtime';
import { authenticateClient } from './credential-request';
import type { EventHub, HubSubscription } from './event-hub';
import { type ReadMatcher, createReadMatcher } from './read-matcher';
import type { HubEntry } from './realtime-event';
import type { ResolvedRealtimeOptions } from './realtime-options';

/** What a transport does for its client. */
export interface ClientTransport {
  /** Sends one event (the transport watches its own buffer and drops a client that does not read). */
  send(entry: HubEntry): void;
  /** Tells the client it can no longer read `slug` (its access changed); it stays connected. */
  revoked(slug: string, error: ContentError): void;
  /** Tells the client why, and ends the connection. */
  end(error: ContentError): void;
}

/** Matchers ready to be switched on for a set of collections. */
export type Grant = ReadonlyMap<string, ReadMatcher>;

export interface RealtimeClient {
  readonly user: AuthUser | null;
  /** Collections currently subscribed. */
  readonly collections: ReadonlySet<string>;
  /**
   * Checks that every slug names a collection the client may read and that the subscription limit holds.
   * Throws QueryError (unknown collection, too many) or 401/403 before anything is subscribed.
   */
  authorize(slugs: readonly string[]): Promise<Grant>;
  /** Switches a grant on. Synchronous, so no event falls between `replayFrom` and live delivery. */
  activate(grant: Grant, replay?: readonly HubEntry[]): void;
  unsubscribe(slugs: readonly string[]): string[];
  /** Re-runs authentication and read access now (a user change, or the timer). */
  recheck(): Promise<void>;
  close(): void;
}

/** Creates a client; `req` is its HTTP request (SSE) or upgrade request (WebSocket). */
export function createRealtimeClient(args: {
  runtime: Runtime;
  hub: EventHub<HubEntry>;
  options: ResolvedRealtimeOptions;
  req: IncomingMessage;
  user: AuthUser | null;
  transport: ClientTransport;
  onClose(): void;
}): RealtimeClient {
  const { runtime, hub, options, req, transport } = args;
  let user = args.user;
  const signedIn = user !== null;
  const matchers = new Map<string, ReadMatcher>();
  let closed = false;
  let checking: Promise<void> | undefined;
  let again = false;

  function deliver(entry: HubEntry): void {
    const matcher = matchers.get(entry.event.collection);
    if (!matcher) return;
    if (entry.row ? matcher.test(entry.row) : matcher.open) transport.send(entry);
  }

  const subscription: HubSubscription = hub.subscribe([], deliver, () => {
    closed = true;
    clearInterval(timer);
    args.onClose();
  });
  const timer = setInterval(() => void client.recheck(), options.credentialCheckMs);
  timer.unref();

  function matcherFor(slug: string, who: AuthUser | null): Promise<ReadMatcher> {
    return createReadMatcher({ runtime, collection: runtime.collections.get(slug)!, user: who, req: req as Request });
  }

  async function check(): Promise<void> {
    let now: AuthUser | null;
    try {
      now = await authenticateClient(runtime, req);
    } catch (error) {
      if (error instanceof ContentError) return transport.end(error);
      throw error;
    }
    // A credential that stopped naming the same user (revoked, expired, deleted) ends the subscription.
    if (signedIn && (!now || now.id !== user?.id)) return transport.end(new UnauthorizedError('The credential is no longer valid.', 'invalid_token'));
    user = now;
    for (const slug of [...matchers.keys()]) {
      try {
        const matcher = await matcherFor(slug, user);
        if (!closed && matchers.has(slug)) matchers.set(slug, matcher);
      } catch (error) {
        if (!(error instanceof ForbiddenError || error instanceof UnauthorizedError)) throw error;
        if (closed || !matchers.has(slug)) continue;
        matchers.delete(slug);
        subscription.remove([slug]);
        transport.revoked(slug, error);
      }
    }
  }

  const client: RealtimeClient = {
    get user() {
      return user;
    },
    collections: subscription.collections,
    async authorize(slugs) {
      const unknown = slugs.filter((slug) => !runtime.collections.has(slug));
      if (unknown.length) {
        throw new QueryError(`Unknown collection${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`, unknown.map((slug) => ({ field: 'collections', message: `unknown collection "${slug}"`, code: 'unknown_collection' })));
      }
      const total = new Set([...matchers.keys(), ...slugs]).size;
      if (total > options.maxSubscriptions) {
        throw new QueryError(`At most ${options.maxSubscriptions} collections per client.`, [{ field: 'collections', message: `at most ${options.maxSubscriptions}`, code: 'too_many_subscriptions' }]);
      }
      const grant = new Map<string, ReadMatcher>();
      for (const slug of slugs) grant.set(slug, await matcherFor(slug, user));
      return grant;
    },
    activate(grant, replay) {
      if (closed) return;
      for (const [slug, matcher] of grant) matchers.set(slug, matcher);
      for (const entry of replay ?? []) if (grant.has(entry.event.collection)) deliver(entry);
      subscription.add(grant.keys());
    },
    unsubscribe(slugs) {
      const removed = slugs.filter((slug) => matchers.delete(slug));
      subscription.remove(removed);
      return removed;
    },
    recheck() {
      if (closed) return Promise.resolve();
      // One check at a time; a request arriving meanwhile runs once more after it, as it may have read too early.
      if (checking) {
        again = true;
        return checking;
      }
      checking = check()
        .catch((error: unknown) => {
          // An outage fails every client's check at once: folded into the outage log, not a line per client.
          if (isDatabaseUnavailable(error)) runtime.outage.recheckFailed(error);
          else runtime.config.logger.error('content-router: a realtime credential re-check failed:', error);
        })
        .finally(() => {
          checking = undefined;
          if (again) {
            again = false;
            void client.recheck();
          }
        });
      return checking;
    },
    close() {
      subscription.close();
    },
  };
  return client;
}
