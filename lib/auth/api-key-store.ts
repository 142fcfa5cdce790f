// API keys of one auth collection, in their own Mongo collection: `ck_` + 256 random bits, shown once,
// stored as a SHA-256 digest with name, scopes, optional expiry, createdAt and lastUsedAt.
import { type Connection, Schema, Types } from 'mongoose';
import type { Scope } from '../config/types';
import { createRandomToken, hashToken } from '../util/random-token';
import { isObjectIdString } from '../util/object-id';
import type { Clock } from '../util/clock';

/** Every API key starts with this, so the router (and secret scanners) can tell keys from JWTs. */
export const API_KEY_PREFIX = 'ck_';

/** lastUsedAt is written at most this often per key, so a busy key does not cost a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface ApiKeyRow {
  _id: Types.ObjectId;
  keyHash: string;
  userId: Types.ObjectId;
  name: string;
  scopes: Scope[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

/** An API key as the API shows it: never the key, never its digest. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  scopes: Scope[];
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface ApiKeyStore {
  init(): Promise<void>;
  /** Stores a new key and returns it in the clear together with its record. */
  create(args: { userId: string; name: string; scopes: Scope[]; expiresAt: Date | null }): Promise<{ record: ApiKeyRecord; key: string }>;
  /** The user's keys, newest first. */
  list(userId: string): Promise<ApiKeyRecord[]>;
  /** Deletes one of the user's keys; false when the user has no key with this id. */
  remove(userId: string, id: string): Promise<boolean>;
  /** Deletes every key of a user; returns how many there were. */
  removeAll(userId: string): Promise<number>;
  /** The owner, scopes and id of a live key (and notes its use), or undefined for an unknown, revoked or expired key. */
  verify(key: string): Promise<{ userId: string; scopes: Scope[]; keyId: string } | undefined>;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row._id.toHexString(),
    name: row.name,
    scopes: [...row.scopes],
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
  };
}

/** Creates the store on the router's connection; its Mongo collection is `collectionName`. */
export function createApiKeyStore(connection: Connection, collectionName: string, clock: Clock): ApiKeyStore {
  const schema = new Schema<ApiKeyRow>(
    {
      keyHash: { type: String, required: true },
      userId: { type: Schema.Types.ObjectId, required: true },
      name: { type: String, required: true },
      scopes: { type: [String], default: undefined },
      expiresAt: { type: Date, default: null },
      lastUsedAt: { type: Date, default: null },
    },
    { timestamps: { createdAt: true, updatedAt: false, currentTime: () => clock.now() }, versionKey: false, autoIndex: false, autoCreate: false },
  );
  schema.index({ keyHash: 1 }, { unique: true });
  schema.index({ userId: 1, createdAt: -1 });
  const name = `content-router:auth:${collectionName}`;
  if (Object.hasOwn(connection.models, name)) connection.deleteModel(name);
  const model = connection.model<ApiKeyRow>(name, schema, collectionName);

  return {
    async init() {
      await model.createIndexes();
    },
    async create({ userId, name: label, scopes, expiresAt }) {
      const key = createRandomToken(API_KEY_PREFIX);
      const doc = await model.create({ keyHash: hashToken(key), userId: new Types.ObjectId(userId), name: label, scopes, expiresAt });
      return { record: toRecord(doc.toObject()), key };
    },
    async list(userId) {
      const rows = await model.find({ userId: new Types.ObjectId(userId) }).sort({ createdAt: -1, _id: -1 }).lean<ApiKeyRow[]>();
      return rows.map(toRecord);
    },
    async remove(userId, id) {
      if (!isObjectIdString(id)) return false;
      const result = await model.deleteOne({ _id: new Types.ObjectId(id), userId: new Types.ObjectId(userId) });
      return result.deletedCount > 0;
    },
    async removeAll(userId) {
      return (await model.deleteMany({ userId: new Types.ObjectId(userId) })).deletedCount;
    },
    async verify(key) {
      const now = clock.now();
      const row = await model
        .findOne({ keyHash: hashToken(key), $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] })
        .lean<ApiKeyRow>();
      if (!row) return undefined;
      if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        await model.updateOne({ _id: row._id }, { $set: { lastUsedAt: now } });
      }
      return { userId: row.userId.toHexString(), scopes: [...row.scopes], keyId: row._id.toHexString() };
    },
  };
}
