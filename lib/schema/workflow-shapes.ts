// The shapes of the content workflow's answers that are the same for every collection: a version's ops, its
// actor, a working copy's statuses, a scheduled action and a preview link. One list of each, below both of
// their writers (the OpenAPI document and the generated TypeScript types), so the two cannot drift apart.
import type { VersionOp } from './version-schema';

/** Every op a version may have, in the order the docs list them (checked complete against VersionOp). */
const OPS = { create: true, update: true, delete: true, restore: true, publish: true, unpublish: true, draft: true } satisfies Record<VersionOp, true>;
export const VERSION_OPS = Object.freeze(Object.keys(OPS) as VersionOp[]);

/** A working copy's `_status`: never published, the same as the published record, or different from it. */
export const DRAFT_STATUSES = Object.freeze(['draft', 'published', 'changed'] as const);

/** What a scheduled action does, and the states it goes through. */
export const SCHEDULE_ACTIONS = Object.freeze(['publish', 'unpublish'] as const);
export const SCHEDULE_STATUSES = Object.freeze(['pending', 'done', 'failed', 'cancelled'] as const);

/** A field of one of the shared shapes below: its wire type, whether it may be absent or null. */
export interface WorkflowField {
  name: string;
  type: 'text' | 'integer' | 'date' | { enum: readonly string[] };
  /** Left out of the answer when it has no value. */
  optional?: boolean;
  nullable?: boolean;
  description?: string;
}

/** Who made a version: the caller's identity (never its role or scopes), or the router's own flow. */
export const VERSION_ACTOR_FIELDS: readonly WorkflowField[] = Object.freeze([
  { name: 'id', type: 'text', optional: true, description: "The user's or API key owner's id." },
  { name: 'collection', type: 'text', optional: true, description: "The user's auth collection." },
  { name: 'apiKeyId', type: 'text', optional: true, description: 'The API key the change was made with.' },
  { name: 'origin', type: 'text', description: '`rest`, `local`, `schedule`, or the name of one of the router\'s own flows.' },
]);

/** A scheduled publish or unpublish, as POST and GET `/<slug>/:id/schedule` answer it. */
export const SCHEDULED_ACTION_FIELDS: readonly WorkflowField[] = Object.freeze([
  { name: 'id', type: 'text' },
  { name: 'action', type: { enum: SCHEDULE_ACTIONS } },
  { name: 'at', type: 'date', description: 'When it runs (within seconds of it).' },
  { name: 'status', type: { enum: SCHEDULE_STATUSES } },
  { name: 'ifMatch', type: 'text', optional: true, description: "The draft's ETag it was scheduled against: a draft changed since makes it fail (`precondition_failed`) and publishes nothing." },
  { name: 'reason', type: 'text', optional: true, nullable: true, description: 'Why a failed action failed: the code of the problem it met (precondition_failed, forbidden, validation_error, unique_conflict, not_found, ...).' },
  { name: 'detail', type: 'text', optional: true, description: "The problem's message, for a failed action." },
  { name: 'collection', type: 'text', optional: true, description: 'The collection of the record it acts on.' },
  { name: 'global', type: 'text', optional: true, description: 'The global it acts on.' },
  { name: 'record', type: 'text', description: "The record's id (a global's slug)." },
  { name: 'createdAt', type: 'date' },
  { name: 'finishedAt', type: 'date', optional: true, description: 'When it ran, or was cancelled.' },
]);

/** A preview link, as POST `/<slug>/:id/preview` answers it. */
export const PREVIEW_LINK_FIELDS: readonly WorkflowField[] = Object.freeze([
  { name: 'token', type: 'text', description: 'Shown once: only its digest is stored.' },
  { name: 'url', type: 'text', description: 'GET it without credentials to see the draft, until `expiresAt`.' },
  { name: 'expiresAt', type: 'date' },
]);

/** The names of the shared components and generated types. */
export const VERSION_ACTOR_NAME = 'VersionActor';
export const SCHEDULED_ACTION_NAME = 'ScheduledAction';
export const PREVIEW_LINK_NAME = 'PreviewLink';
