// Who a credential belongs to: the user of an access token's claims or of an API key, as access
// rules see it (its record without hidden fields, plus its collection and the key's scopes).
import type { AuthUser } from '../config/types';
import type { ChangeBus } from '../changes/change-bus';
import { isObjectIdString } from '../util/object-id';
import type { AuthCollection } from './auth-collection';
import { accountUser } from './current-account';
import { createUserCache } from './user-cache';
import type { Clock } from '../util/clock';

/** The API key a request presented: its scopes and its id (never the key). */
interface ApiKeyOfUser {
  scopes: NonNullable<AuthUser['scopes']>;
  keyId: string;
}

export interface UserResolver {
  /** The active user `id` of auth collection `slug`, or null when there is none; with `key`, as that API key's user. */
  loadUser(slug: string, id: string, key?: ApiKeyOfUser): Promise<AuthUser | null>;
  /** The owner of an API key (with the key's scopes and id), or null for an unknown, revoked or expired key. */
  userOfApiKey(key: string): Promise<AuthUser | null>;
  close(): void;
}

/** Creates the resolver; users are cached for `ttlSeconds` and dropped on every change to them. */
export function createUserResolver(collections: ReadonlyMap<string, AuthCollection>, ttlSeconds: number, changes: ChangeBus, clock: Clock): UserResolver {
  const users = createUserCache(ttlSeconds, changes, clock);

  async function loadUser(slug: string, id: string, key?: ApiKeyOfUser): Promise<AuthUser | null> {
    const auth = collections.get(slug);
    if (!auth || !isObjectIdString(id)) return null;
    let user = users.get(slug, id);
    if (!user) {
      const row = await auth.collection.model.findOne(auth.active({ _id: id }), auth.collection.projection).lean<Record<string, unknown>>();
      if (!row) return null;
      user = accountUser(auth, row);
      users.set(slug, id, { ...user });
    }
    if (key) {
      user.scopes = key.scopes;
      user.apiKeyId = key.keyId;
    }
    return user;
  }

  return {
    loadUser,
    async userOfApiKey(key) {
      for (const [slug, auth] of collections) {
        const owner = await auth.apiKeys.verify(key);
        if (owner) return loadUser(slug, owner.userId, owner);
      }
      return null;
    },
    close: () => users.close(),
  };
}
