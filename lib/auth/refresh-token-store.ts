// Refresh tokens of one auth collection, in their own Mongo collection: stored as SHA-256 digests,
// rotated on every use, grouped in families (one per login) so a reused token revokes its whole family.
import { type Connection, Schema, Types } from 'mongoose';
import { createRandomToken, hashToken } from '../util/random-token';
import { type Clock, after } from '../util/clock';

interface RefreshTokenRow {
  _id: Types.ObjectId;
  tokenHash: string;
  userId: Types.ObjectId;
  /** One family per login: every rotation of that session shares it (the access token's `sid`). */
  family: string;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

/** What presenting a refresh token led to. */
export type RotateResult =
  | { ok: true; token: string; userId: string; family: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' }
  /** A spent token presented again: its session (family) is ended; `userId` is its user. */
  | { ok: false; reason: 'reused'; userId: string };

export interface RefreshTokenStore {
  /** Builds the indexes (token digest unique, userId, family, TTL on expiresAt). */
  init(): Promise<void>;
  /** Stores a new token (a new family unless given) and returns it in the clear, the only time it exists so. */
  issue(userId: string, ttlMs: number, family?: string): Promise<{ token: string; family: string }>;
  /** Spends the token and issues its successor; a token spent before revokes its family (reuse detection). */
  rotate(token: string, ttlMs: number): Promise<RotateResult>;
  /** Revokes the session (family) of a live token; false when the token is unknown, expired or already revoked. */
  revokeSession(token: string): Promise<{ userId: string; family: string } | undefined>;
  /** Revokes every token of a family. */
  revokeFamily(family: string): Promise<void>;
  /** Revokes every live token of the user; returns how many sessions that ended. */
  revokeAll(userId: string): Promise<number>;
}

/** Creates the store on the router's connection; its Mongo collection is `collectionName`. */
/** `clock`: the router's, which decides expiry and dates revocations. */
export function createRefreshTokenStore(connection: Connection, collectionName: string, clock: Clock): RefreshTokenStore {
  const schema = new Schema<RefreshTokenRow>(
    {
      tokenHash: { type: String, required: true },
      userId: { type: Schema.Types.ObjectId, required: true },
      family: { type: String, required: true },
      expiresAt: { type: Date, required: true },
      usedAt: { type: Date, default: null },
      revokedAt: { type: Date, default: null },
    },
    { timestamps: { createdAt: true, updatedAt: false }, versionKey: false, autoIndex: false, autoCreate: false },
  );
  schema.index({ tokenHash: 1 }, { unique: true });
  schema.index({ userId: 1 });
  schema.index({ family: 1 });
  // Housekeeping only: expiry is always checked in the queries (some servers never run TTL monitors).
  schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
  const name = `content-router:auth:${collectionName}`;
  if (Object.hasOwn(connection.models, name)) connection.deleteModel(name);
  const model = connection.model<RefreshTokenRow>(name, schema, collectionName);

  async function issue(userId: string, ttlMs: number, family = new Types.ObjectId().toHexString()) {
    const token = createRandomToken();
    await model.create({ tokenHash: hashToken(token), userId: new Types.ObjectId(userId), family, expiresAt: after(clock, ttlMs) });
    return { token, family };
  }

  async function revokeFamily(family: string): Promise<void> {
    await model.updateMany({ family, revokedAt: null }, { $set: { revokedAt: clock.now() } });
  }

  return {
    async init() {
      await model.createIndexes();
    },
    issue,
    revokeFamily,
    async rotate(token, ttlMs) {
      const now = clock.now();
      const tokenHash = hashToken(token);
      // Spending is one atomic write: of two concurrent refreshes with the same token, one wins.
      const spent = await model
        .findOneAndUpdate({ tokenHash, usedAt: null, revokedAt: null, expiresAt: { $gt: now } }, { $set: { usedAt: now } })
        .lean<RefreshTokenRow>();
      if (spent) {
        const userId = spent.userId.toHexString();
        const next = await issue(userId, ttlMs, spent.family);
        // The session may have been ended between the spend and the insert (logout, logout-all, a reset,
        // reuse detection): each marks the spent token too, so look at it again once the successor exists.
        if (await model.exists({ _id: spent._id, revokedAt: { $ne: null } })) {
          await revokeFamily(spent.family);
          return { ok: false, reason: 'revoked' };
        }
        return { ok: true, token: next.token, userId, family: spent.family };
      }
      const row = await model.findOne({ tokenHash }).lean<RefreshTokenRow>();
      if (!row) return { ok: false, reason: 'unknown' };
      if (row.revokedAt) return { ok: false, reason: 'revoked' };
      if (row.usedAt) {
        // Someone holds a spent token: the legitimate client or a thief. End the session for both.
        await revokeFamily(row.family);
        return { ok: false, reason: 'reused', userId: row.userId.toHexString() };
      }
      return { ok: false, reason: 'expired' };
    },
    async revokeSession(token) {
      const now = clock.now();
      const row = await model
        .findOneAndUpdate({ tokenHash: hashToken(token), revokedAt: null, expiresAt: { $gt: now } }, { $set: { revokedAt: now } })
        .lean<RefreshTokenRow>();
      if (!row) return undefined;
      await revokeFamily(row.family);
      return { userId: row.userId.toHexString(), family: row.family };
    },
    async revokeAll(userId) {
      const now = clock.now();
      const user = new Types.ObjectId(userId);
      const live = { userId: user, revokedAt: null, usedAt: null, expiresAt: { $gt: now } };
      const result = await model.updateMany(live, { $set: { revokedAt: now } });
      // Spent tokens too: a refresh in flight (spent, successor not yet stored) then sees its session ended.
      await model.updateMany({ userId: user, revokedAt: null }, { $set: { revokedAt: now } });
      return result.modifiedCount;
    },
  };
}
