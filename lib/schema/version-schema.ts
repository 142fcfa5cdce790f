// The stored shape of a version (a record's history): one document per stored change, in
// `<collection>_versions` (a global's in `globals_versions`). Immutable once written, except that a draft
// save coalesced with the version before it replaces that version's content in place.
import { Schema } from 'mongoose';

/** What made a version. */
export type VersionOp = 'create' | 'update' | 'delete' | 'restore' | 'publish' | 'unpublish' | 'draft';

/** Who made a version, as stored: the caller's identity (never its role or scopes), or the router's own flow. */
export interface VersionActor {
  id?: string;
  collection?: string;
  apiKeyId?: string;
  /** `rest`, `local`, `schedule`, or a system flow's name. */
  origin: string;
}

/** One version as stored. */
export interface StoredVersion {
  _id: unknown;
  /** The record's id (ObjectId; a global's slug). */
  record: unknown;
  /** 1, 2, 3...: counts the record's versions, never reused (a restored record continues its numbers). */
  version: number;
  op: VersionOp;
  createdAt: Date;
  actor: VersionActor;
  changedFields: string[];
  /** The record as stored after the change (raw: hidden fields included); a delete's: as it was before. */
  doc: Record<string, unknown>;
  /** True when `doc` was the published state when the version was made (retention always keeps the newest such). */
  published: boolean;
}

/** The schema of a versions collection. */
export function buildVersionSchema(): Schema {
  const schema = new Schema(
    {
      record: { type: Schema.Types.Mixed, required: true },
      version: { type: Number, required: true },
      op: { type: String, required: true },
      createdAt: { type: Date, required: true },
      actor: { type: Schema.Types.Mixed, required: true },
      changedFields: { type: [String], default: undefined },
      doc: { type: Schema.Types.Mixed },
      published: { type: Boolean, default: false },
    },
    { versionKey: false, strict: true, autoIndex: false, autoCreate: false, minimize: false },
  );
  // A record's versions, newest first: the list, the next number (unique: two writers never share one).
  schema.index({ record: 1, version: -1 }, { unique: true });
  return schema;
}
