// Failed logins per e-mail address, kept whether or not an account has that address, so the lock
// (after maxLoginAttempts failures, for lockTime) cannot be used to find out which addresses exist.
import type { Connection } from 'mongoose';
import { Schema } from 'mongoose';
import { isDuplicateKeyError } from '../operations/write-errors';
import { type Clock, after, nowMs } from '../util/clock';
import { hashToken } from '../util/random-token';

interface FailureRow {
  /** SHA-256 of the normalized e-mail: the address itself is not stored here. */
  _id: string;
  count: number;
  lockedUntil: Date | null;
  /** When this row stops mattering: failures are forgotten lockTime after the last one. */
  expiresAt: Date;
}

/** A login attempt, counted before the password is checked. */
export interface Attempt {
  /** Milliseconds the address stays locked (0: not locked, go on and check the password). */
  lockedForMs: number;
  /** Attempts on record for the address, this one included (0 when locking is disabled). */
  count: number;
  /** True when this attempt locked the address (one too many under way at once): a lockout. */
  lockedNow?: boolean;
}

export interface LoginFailureStore {
  init(): Promise<void>;
  /**
   * Counts an attempt before its password is checked, in one atomic write, and says whether the address is
   * locked. Counting first is what makes the limit hold for parallel guesses: checking "locked?" and
   * recording the failure after the (slow) hash let every guess of a burst through.
   */
  begin(email: string): Promise<Attempt>;
  /** The attempt failed: locks the address once maxAttempts attempts have failed; true when this failure locked it. */
  fail(email: string, attempt: Attempt): Promise<boolean>;
  /** Forgets the attempts (successful login, password reset). */
  clear(email: string): Promise<void>;
}

/** Creates the store; with maxAttempts 0 it never locks and never writes. */
export function createLoginFailureStore(
  connection: Connection,
  collectionName: string,
  options: { maxAttempts: number; lockTimeMs: number; clock: Clock },
): LoginFailureStore {
  const schema = new Schema<FailureRow>(
    {
      _id: { type: String },
      count: { type: Number, default: 0 },
      lockedUntil: { type: Date, default: null },
      expiresAt: { type: Date, required: true },
    },
    { versionKey: false, autoIndex: false, autoCreate: false },
  );
  // Housekeeping only: every read compares the dates itself.
  schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
  const name = `content-router:auth:${collectionName}`;
  if (Object.hasOwn(connection.models, name)) connection.deleteModel(name);
  const model = connection.model<FailureRow>(name, schema, collectionName);
  const enabled = options.maxAttempts > 0;

  const increment = (key: string, expiresAt: Date) =>
    model
      .findOneAndUpdate({ _id: key }, { $inc: { count: 1 }, $set: { expiresAt } }, { upsert: true, returnDocument: 'after', setDefaultsOnInsert: true })
      .lean<FailureRow>();

  /** Locks the address unless it is locked already; true when this call locked it. */
  const lock = async (key: string, lockedUntil: Date) =>
    (await model.updateOne({ _id: key, lockedUntil: null }, { $set: { lockedUntil, expiresAt: lockedUntil } })).modifiedCount > 0;

  return {
    async init() {
      if (enabled) await model.createIndexes();
    },
    async begin(email) {
      if (!enabled) return { lockedForMs: 0, count: 0 };
      const key = hashToken(email);
      const now = nowMs(options.clock);
      const expiresAt = new Date(now + options.lockTimeMs);
      // A finished lock or forgotten failures start over.
      await model.deleteOne({ _id: key, $or: [{ expiresAt: { $lte: new Date(now) } }, { lockedUntil: { $lte: new Date(now) } }] });
      let row: FailureRow | null;
      try {
        row = await increment(key, expiresAt);
      } catch (error) {
        // Two first attempts at once can both try to insert; the loser just increments.
        if (!isDuplicateKeyError(error)) throw error;
        row = await increment(key, expiresAt);
      }
      if (row.lockedUntil) return { lockedForMs: Math.max(1, row.lockedUntil.getTime() - now), count: row.count };
      if (row.count > options.maxAttempts) {
        // maxAttempts guesses are already under way (or failed): this one is not checked, and locks.
        const lockedNow = await lock(key, expiresAt);
        return { lockedForMs: options.lockTimeMs, count: row.count, lockedNow };
      }
      return { lockedForMs: 0, count: row.count };
    },
    async fail(email, attempt) {
      return enabled && attempt.count >= options.maxAttempts && (await lock(hashToken(email), after(options.clock, options.lockTimeMs)));
    },
    async clear(email) {
      if (enabled) await model.deleteOne({ _id: hashToken(email) });
    },
  };
}
