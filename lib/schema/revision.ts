// The revision every stored record carries: 1 when created, one more with every write through the router.
// Writes that must not overwrite a change they have not seen (If-Match, access-constrained updates) are
// written only where the revision is still the one they read, so the check and the write are one atomic step.
import type { Schema } from 'mongoose';

/** The stored field; not a field of the record clients see (a leading underscore: no config may declare it). */
export const REVISION = '_rev';

/**
 * Makes every update through the model move the revision: the router's own writes, the auth routes', and
 * the host's through `api.models`. A write that bypasses Mongoose (the driver, another program) does not:
 * it should `$inc` the field itself.
 */
export function moveRevisionOnUpdate(schema: Schema): void {
  schema.pre(['updateOne', 'updateMany', 'findOneAndUpdate'], function moveRevision() {
    const update = this.getUpdate();
    // An aggregation-pipeline update is the writer's own business.
    if (!update || Array.isArray(update)) return;
    this.setUpdate(withRevisionMoved(update));
  });
}

/** The update, also moving the revision: what the hook above adds, for writes no query middleware sees (bulkWrite). */
export function withRevisionMoved<T extends Record<string, unknown>>(update: T): T {
  const inc = (update.$inc ?? {}) as Record<string, unknown>;
  return { ...update, $inc: { ...inc, [REVISION]: 1 } };
}

/**
 * A filter condition: the stored revision is still `rev`. A record written before revisions existed has
 * none until its first write through the router gives it one. Not an equality on null: an upsert would
 * copy that into the new document, where `$inc` cannot apply to it.
 */
export function atRevision(rev: unknown): Record<string, unknown> {
  return { [REVISION]: typeof rev === 'number' ? rev : { $exists: false } };
}
