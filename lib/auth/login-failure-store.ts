// Failed logins per e-mail address, kept whether or not an account has that address, so the lock
// (after maxLoginAttempts failures, for lockTime) cannot be used to find out which addresses exist.
import type { Connection } from 'mongoose';
import { Schema } from 'mongoose';
import { isDuplicateKeyError } from '../operations/write-errors';
import { hashToken } from './random-token';

interface FailureRow {
  /** SHA-256 of the normalized e-mail: the address itself is not stored here. */
  _id: string;
  count: number;
  lockedUntil: Date | null;
  /** When this row stops mattering: failures are forgotten lockTime after the last one. */
  expiresAt: Date;
}

/** The failure state of one address. */
export interface FailureState {
  /** Milliseconds the address stays locked (0: not locked). */
  lockedForMs: number;
  /** Whether any failure is remembered (so a successful login has something to clear). */
  hasFailures: boolean;
}

export interface LoginFailureStore {
  init(): Promise<void>;
  /** Whether the address is locked, and whether it has failures on record. */
  check(email: string): Promise<FailureState>;
  /** Counts a failure; locks the address once maxAttempts is reached. */
  record(email: string): Promise<void>;
  /** Forgets the failures (successful login, password reset). */
  clear(email: string): Promise<void>;
}

/** Creates the store; with maxAttempts 0 it never locks and never writes. */
export function createLoginFailureStore(
  connection: Connection,
  collectionName: string,
  options: { maxAttempts: number; lockTimeMs: number },
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
  if (connection.models[name]) connection.deleteModel(name);
  const model = connection.model<FailureRow>(name, schema, collectionName);
  const enabled = options.maxAttempts > 0;

  const increment = (key: string, expiresAt: Date) =>
    model
      .findOneAndUpdate({ _id: key }, { $inc: { count: 1 }, $set: { expiresAt } }, { upsert: true, returnDocument: 'after', setDefaultsOnInsert: true })
      .lean<FailureRow>();

  return {
    async init() {
      if (enabled) await model.createIndexes();
    },
    async check(email) {
      if (!enabled) return { lockedForMs: 0, hasFailures: false };
      const row = await model.findById(hashToken(email)).lean<FailureRow>();
      const left = row?.lockedUntil ? row.lockedUntil.getTime() - Date.now() : 0;
      return { lockedForMs: left > 0 ? left : 0, hasFailures: row !== null };
    },
    async record(email) {
      if (!enabled) return;
      const key = hashToken(email);
      const now = Date.now();
      const expiresAt = new Date(now + options.lockTimeMs);
      // A row past its expiry (a finished lock, old failures) starts over.
      await model.deleteOne({ _id: key, expiresAt: { $lte: new Date(now) } });
      let row: FailureRow | null;
      try {
        row = await increment(key, expiresAt);
      } catch (error) {
        // Two first failures at once can both try to insert; the loser just increments.
        if (!isDuplicateKeyError(error)) throw error;
        row = await increment(key, expiresAt);
      }
      if (row && row.count >= options.maxAttempts && !row.lockedUntil) {
        await model.updateOne({ _id: key }, { $set: { lockedUntil: expiresAt, expiresAt } });
      }
    },
    async clear(email) {
      if (enabled) await model.deleteOne({ _id: hashToken(email) });
    },
  };
}
