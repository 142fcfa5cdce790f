// Where preview links are kept: one collection for every router on the database, a row per link, keyed by
// the SHA-256 digest of its token (the token itself is never stored: a copy of the database opens no
// draft). A row names the record it opens (collection or global, slug, id), its expiry on the router's
// clock, and who made it. Every use checks the expiry itself; the TTL index only clears expired rows away,
// where the server runs TTL monitors at all.
import type { Connection } from 'mongoose';

/** Not a valid collection slug (it has a dot), so it never collides with a configured collection. */
export const PREVIEW_TOKENS_COLLECTION = 'content-router.preview-tokens';

/** Who made a preview link: the caller's identity (never its role or scopes), and where the call came from. */
export interface PreviewCreator {
  id?: string;
  collection?: string;
  /** `rest` or `local`. */
  origin: string;
}

/** One preview link as stored. */
export interface PreviewTokenRow {
  /** The token's digest (util/random-token.ts hashToken). */
  _id: string;
  /** The collection's (or global's) slug. */
  slug: string;
  /** True for a global's link (its record is the global's slug). */
  global: boolean;
  /** The record's id as stored (lower-case hex; a global's slug). */
  record: string;
  expiresAt: Date;
  createdAt: Date;
  createdBy: PreviewCreator;
}

/** The preview links' collection on the router's connection. */
export function previewTokens(connection: Connection) {
  return connection.collection<PreviewTokenRow>(PREVIEW_TOKENS_COLLECTION);
}

/** The index revocation finds a record's links by, and the TTL index clearing expired ones away. */
export async function createPreviewTokenIndexes(connection: Connection): Promise<void> {
  const rows = previewTokens(connection);
  await rows.createIndex({ slug: 1, global: 1, record: 1 }, undefined, undefined);
  await rows.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 }, undefined);
}
