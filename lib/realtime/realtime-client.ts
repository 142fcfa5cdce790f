// One connected realtime client, whatever its transport: who it is, what it may read (a matcher per
// collection, re-checked when due and when its user changes), and which events reach it. A class: a
// server holds thousands of idle clients, and methods on a prototype cost none of them a closure.
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { type ContentError, ForbiddenError, QueryError, UnauthorizedError, isErrorAnswer } from '../errors';
import { isDatabaseUnavailable } from '../http/to-problem';
import type { Runtime } from '../operations/runtime';
import { authenticateClient } from './credential-request';
import type { EventHub, HubListener, HubSubscription } from './event-hub';
import { type ReadMatcher, type RuleBook, createReadMatcher } from './read-matcher';
import { viewOf } from './reader-view';
import type { HubEntry } from './realtime-event';
import type { ResolvedRealtimeOptions } from './realtime-options';
import { toLoggableError } from '../util/loggable-error';
import { nowMs } from '../util/clock';

/** What a transport does for its client. */
export interface ClientTransport {
  /** Sends one event (the transport watches its own buffer and drops a client that does not read). */
  send(entry: HubEntry): void;
  /** Tells the client it can no longer read `slug` (its access changed); it stays connected. */
  revoked(slug: string, error: ContentError): void;
  /** Tells the client why, and ends the connection. */
  end(error: ContentError): void;
  /** The client closed (once): the transport lets go of it and ends its connection if still open. */
  closed(): void;
}

/** What every client of a router shares. */
export interface ClientContext {
  readonly runtime: Runtime;
  readonly hub: EventHub<HubEntry>;
  readonly options: ResolvedRealtimeOptions;
  /** The router's compiled read rules, shared by its readers. */
  readonly rules: RuleBook;
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
  /** Re-runs authentication and read access now (a user change). */
  recheck(): Promise<void>;
  /** Re-checks when credentialCheckMs have passed since the last time (the feature's shared timer asks). */
  recheckIfDue(now: number): void;
  close(): void;
}

/** Creates a client; `req` is its HTTP request (SSE) or upgrade request (WebSocket). */
export function createRealtimeClient(ctx: ClientContext, req: IncomingMessage, user: AuthUser | null, transport: ClientTransport): RealtimeClient {
  return new Client(ctx, req, user, transport);
}

class Client implements RealtimeClient, HubListener<HubEntry> {
  /** The collections followed, each with this reader's matcher. */
  private readonly subscription: HubSubscription<ReadMatcher>;
  private readonly signedIn: boolean;
  /** When the next periodic re-check is due (ms since the epoch). */
  private dueAt: number;
  private isClosed = false;
  private checking: Promise<void> | undefined = undefined;
  private again = false;
  /** Events still being personalized (read hooks run asynchronously): later ones wait, so order holds. */
  private pending: Promise<void> | undefined = undefined;
  /** How many events wait behind `pending`: past maxBufferedEvents (a read hook that hangs) the client is dropped. */
  private waiting = 0;

  constructor(
    private readonly ctx: ClientContext,
    private readonly req: IncomingMessage,
    private current: AuthUser | null,
    private readonly transport: ClientTransport,
  ) {
    this.signedIn = current !== null;
    this.subscription = ctx.hub.subscribe(this);
    this.dueAt = nowMs(ctx.runtime.config.clock) + ctx.options.credentialCheckMs;
  }

  get user(): AuthUser | null {
    return this.current;
  }

  get collections(): ReadonlySet<string> {
    return new Set(this.subscription.collections.keys());
  }

  /**
   * The hub's delivery: the event as this reader's rule sees it (reader-view.ts: itself, or a create or a
   * delete where the record entered or left its view, or nothing), as this reader's copy where it has one.
   */
  deliver(entry: HubEntry): void {
    const matcher = this.subscription.collections.get(entry.event.collection);
    const seen = matcher && viewOf(matcher.rule, entry);
    if (!matcher || !seen) return;
    if (!matcher.personalize && !this.pending) {
      this.transport.send(seen);
      return;
    }
    if (++this.waiting > this.ctx.options.maxBufferedEvents) {
      this.ctx.runtime.config.logger.warn(`content-router: a realtime client was dropped: more than ${this.ctx.options.maxBufferedEvents} events waited for its read hooks`);
      this.close();
      return;
    }
    const { personalize } = matcher;
    const copy = personalize ? () => personalize(seen) : () => seen;
    const next: Promise<void> = (this.pending ?? Promise.resolve())
      .then(copy)
      .then(
        (own) => {
          if (!this.isClosed) this.transport.send(own);
        },
        (error: unknown) => {
          // A read hook that fails drops this event for this reader only; the stream goes on.
          this.ctx.runtime.config.logger.error(`content-router: a realtime ${entry.event.collection} event was not sent to a client: a read hook failed:`, toLoggableError(error));
        },
      )
      .finally(() => {
        this.waiting -= 1;
        if (this.pending === next) this.pending = undefined;
      });
    this.pending = next;
  }

  /** The hub's subscription closed: let the transport go. */
  closed(): void {
    this.isClosed = true;
    this.transport.closed();
  }

  async authorize(slugs: readonly string[]): Promise<Grant> {
    const { runtime, options } = this.ctx;
    const unknown = slugs.filter((slug) => !runtime.collections.has(slug));
    if (unknown.length) {
      throw new QueryError(`Unknown collection${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`, unknown.map((slug) => ({ field: 'collections', message: `unknown collection "${slug}"`, code: 'unknown_collection' })));
    }
    const total = new Set([...this.subscription.collections.keys(), ...slugs]).size;
    if (total > options.maxSubscriptions) {
      throw new QueryError(`At most ${options.maxSubscriptions} collections per client.`, [{ field: 'collections', message: `at most ${options.maxSubscriptions}`, code: 'too_many_subscriptions' }]);
    }
    const grant = new Map<string, ReadMatcher>();
    for (const slug of slugs) grant.set(slug, await this.matcherFor(slug, this.current));
    return grant;
  }

  activate(grant: Grant, replay?: readonly HubEntry[]): void {
    if (this.isClosed) return;
    this.subscription.add(grant);
    for (const entry of replay ?? []) if (grant.has(entry.event.collection)) this.deliver(entry);
  }

  unsubscribe(slugs: readonly string[]): string[] {
    const removed = slugs.filter((slug) => this.subscription.collections.has(slug));
    this.subscription.remove(removed);
    return removed;
  }

  recheck(): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    // One check at a time; a request arriving meanwhile runs once more after it, as it may have read too early.
    if (this.checking) {
      this.again = true;
      return this.checking;
    }
    this.checking = this.check()
      .catch((error: unknown) => {
        // An outage fails every client's check at once: folded into the outage log, not a line per client.
        if (isDatabaseUnavailable(error)) this.ctx.runtime.outage.recheckFailed(error);
        else this.ctx.runtime.config.logger.error('content-router: a realtime credential re-check failed:', error);
      })
      .finally(() => {
        this.checking = undefined;
        if (this.again) {
          this.again = false;
          void this.recheck();
        }
      });
    return this.checking;
  }

  recheckIfDue(now: number): void {
    if (now < this.dueAt) return;
    this.dueAt = now + this.ctx.options.credentialCheckMs;
    void this.recheck();
  }

  close(): void {
    this.subscription.close();
  }

  private matcherFor(slug: string, who: AuthUser | null): Promise<ReadMatcher> {
    const { runtime } = this.ctx;
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- subscriptions name only collections that exist (authorize checked)
    return createReadMatcher({ runtime, collection: runtime.collections.get(slug)!, user: who, req: this.req as Request, rules: this.ctx.rules });
  }

  private async check(): Promise<void> {
    let now: AuthUser | null;
    try {
      now = await authenticateClient(this.ctx.runtime, this.req);
    } catch (error) {
      if (isErrorAnswer(error)) {
        this.transport.end(error);
        return;
      }
      throw error;
    }
    // A credential that stopped naming the same user (revoked, expired, deleted) ends the subscription.
    if (this.signedIn && (!now || now.id !== this.current?.id)) {
      this.transport.end(new UnauthorizedError('The credential is no longer valid.', 'invalid_token'));
      return;
    }
    this.current = now;
    // A closed subscription follows nothing (and takes nothing more), so a late answer changes nothing.
    const followed = this.subscription.collections;
    for (const slug of [...followed.keys()]) {
      try {
        const matcher = await this.matcherFor(slug, now);
        if (followed.has(slug)) this.subscription.add([[slug, matcher]]);
      } catch (error) {
        if (!(error instanceof ForbiddenError || error instanceof UnauthorizedError)) throw error;
        if (!followed.has(slug)) continue;
        this.subscription.remove([slug]);
        this.transport.revoked(slug, error);
      }
    }
  }
}
