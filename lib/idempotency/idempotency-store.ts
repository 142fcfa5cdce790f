// The keys of every router on one database, in one collection: a row per caller and key, { _id: SHA-256 of
// scope and key (never the key itself), caller: SHA-256 of the scope, state, token, fingerprint, expiresAt,
// answer }. A running request's
// row is its claim, held until `expiresAt` (its lease, renewed while it runs); a done row keeps the answer
// until `expiresAt` (the TTL). A TTL index removes expired rows, and every read treats one as absent too,
// so nothing depends on the TTL monitor having run.
import { randomBytes } from 'node:crypto';
import type { Connection, mongo } from 'mongoose';
import type { FormSize } from '../http/multipart';
import { DatabaseTimeoutError } from '../errors';
import { isDuplicateKeyError } from '../operations/write-errors';
import type { ResolvedIdempotency } from './idempotency-options';
import { type Clock, after } from '../util/clock';

/** Not a valid collection slug (it has a dot), so it never collides with a configured collection. */
export const IDEMPOTENCY_COLLECTION = 'content-router.idempotency-keys';

/** An answer as stored: what a replay sends again. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface KeyRow {
  _id: string;
  /** Whose key it is (the SHA-256 of the caller's scope): a caller's live keys are counted against its quota. */
  caller?: string;
  state: 'running' | 'done';
  /** Whose claim this is: only the request holding it completes, renews or releases the row. */
  token: string;
  /** Absent while a streamed form (an upload) is still being read. */
  fingerprint?: string;
  /** The size of a streamed form: a repeat is read only that far (a larger one cannot be the same request). */
  formSize?: FormSize;
  expiresAt: Date;
  /** Absent (on a done row) for an answer not kept: too large, or marked no-store. */
  answer?: { status: number; headers: Record<string, string>; body: mongo.Binary };
}

/** A running request's hold on its key. */
export interface Claim {
  readonly id: string;
  readonly token: string;
}

/** What claiming a key finds: the key is this request's now, or another request's live row is there. */
export type ClaimOutcome = { claim: Claim } | { row: KeyRow } | { busy: true };

export interface IdempotencyStore {
  /** One indexed write; on a live row, one indexed read more. */
  claim(id: string, caller: string, fingerprint: string | undefined): Promise<ClaimOutcome>;
  /**
   * Undefined while the caller holds at most `max` live keys (one indexed count); else when the first of
   * them expires (one indexed read more).
   */
  overQuota(caller: string, max: number): Promise<{ firstExpiry: Date } | undefined>;
  /** Keeps the answer for the TTL (answer undefined: not kept, too large or marked no-store). */
  complete(claim: Claim, result: { fingerprint: string; formSize?: FormSize; answer?: StoredAnswer }): Promise<void>;
  /** Gives the key up (the request failed): a repeat runs. */
  release(claim: Claim): Promise<void>;
  /** Extends a running request's lease. */
  renew(claim: Claim): Promise<void>;
  /** The TTL index, and the index counting a caller's keys. */
  createIndexes(): Promise<void>;
}

/** Claims tried before giving up on a key other requests keep taking and letting go (each retry follows a real write). */
const MAX_ATTEMPTS = 3;

/** `clock`: the router's; leases and TTLs are dates in its time. */
export function createIdempotencyStore(connection: Connection, options: ResolvedIdempotency, requestTimeoutMS: number | false, clock: Clock): IdempotencyStore {
  const rows = () => connection.collection<KeyRow>(IDEMPOTENCY_COLLECTION);
  const later = (ms: number) => after(clock, ms);

  async function claim(id: string, caller: string, fingerprint: string | undefined): Promise<ClaimOutcome> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const now = clock.now();
      const token = randomBytes(16).toString('hex');
      const held = { state: 'running' as const, caller, token, expiresAt: new Date(now.getTime() + options.leaseMs) };
      try {
        // Takes an expired row over, or inserts one; a live row makes the insert fail on the unique _id,
        // also when another request claimed the key a moment ago. Atomic whichever instance asks.
        await rows().updateOne(
          { _id: id, expiresAt: { $lte: now } },
          fingerprint === undefined ? { $set: held, $unset: { fingerprint: '', formSize: '', answer: '' } } : { $set: { ...held, fingerprint }, $unset: { formSize: '', answer: '' } },
          { upsert: true },
        );
        return { claim: { id, token } };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const row = await rows().findOne({ _id: id });
      // Gone or expired since the write failed: claim again.
      if (row && row.expiresAt > clock.now()) return { row };
    }
    return { busy: true };
  }

  const release = async ({ id, token }: Claim) => {
    await within(requestTimeoutMS, rows().deleteOne({ _id: id, token }));
  };

  return {
    claim(id, caller, fingerprint) {
      const claiming = claim(id, caller, fingerprint);
      return within(requestTimeoutMS, claiming).catch((error: unknown) => {
        // Answered 503 meanwhile: a claim landing late is given up at once rather than held for its lease.
        if (error instanceof DatabaseTimeoutError) claiming.then((outcome) => ('claim' in outcome ? release(outcome.claim) : undefined)).catch(() => undefined);
        throw error;
      });
    },
    async complete({ id, token }, { fingerprint, formSize, answer }) {
      const done = { state: 'done', fingerprint, expiresAt: later(options.ttlMs), ...(formSize === undefined ? {} : { formSize }), ...(answer ? { answer } : {}) };
      await within(requestTimeoutMS, rows().updateOne({ _id: id, token }, { $set: done as Partial<KeyRow> }));
    },
    release,
    async renew({ id, token }) {
      await within(requestTimeoutMS, rows().updateOne({ _id: id, token, state: 'running' }, { $set: { expiresAt: later(options.leaseMs) } }));
    },
    async overQuota(caller, max) {
      const live = { caller, expiresAt: { $gt: clock.now() } };
      // Counted only that far: a caller far beyond (a smaller quota since) costs no more than one just beyond.
      if ((await within(requestTimeoutMS, rows().countDocuments(live, { limit: max + 1 }))) <= max) return undefined;
      const first = await within(requestTimeoutMS, rows().findOne(live, { sort: { expiresAt: 1 }, projection: { expiresAt: 1 } }));
      return { firstExpiry: first?.expiresAt ?? later(options.ttlMs) };
    },
    async createIndexes() {
      await rows().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 }, undefined);
      await rows().createIndex({ caller: 1, expiresAt: 1 }, undefined, undefined);
    },
  };
}

/**
 * Settles like `call`, or rejects with a 503 `database_timeout` after `ms` (never with `false`). The
 * idempotency check runs before the request's own deadline starts (its preHandler precedes the core's), and
 * settling a key may outlive it: each of their database waits is bounded by the same limit, so a database
 * that never answers cannot hold a keyed request forever.
 */
export function within<T>(ms: number | false, call: Promise<T>): Promise<T> {
  if (ms === false) return call;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeoutError(ms)), ms);
    timer.unref();
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
