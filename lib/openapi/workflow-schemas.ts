// JSON Schemas of the content workflow's answers: a record's history (a version's summary, the version with
// its record, the list of versions, a diff), a working copy with its `_status` and the list of working copies,
// and the shapes every versioned collection shares (who made a version, a scheduled action, a preview link).
// Each is named only when a route answers it: an unused component is a lint warning.
import type { JsonSchema } from '../http/route-table';
import {
  DRAFT_STATUSES,
  PREVIEW_LINK_FIELDS,
  SCHEDULED_ACTION_FIELDS,
  VERSION_ACTOR_FIELDS,
  VERSION_ACTOR_NAME,
  VERSION_OPS,
  type WorkflowField,
} from '../schema/workflow-shapes';
import { nullable, ref } from './record-schemas';

/** A closed object of the shared fields: the optional ones may be absent, the nullable ones null. */
export function workflowObjectSchema(fields: readonly WorkflowField[], description: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of fields) {
    const value: JsonSchema =
      field.type === 'text' ? { type: 'string' } : field.type === 'integer' ? { type: 'integer', minimum: 0 } : field.type === 'date' ? { type: 'string', format: 'date-time' } : { type: 'string', enum: [...field.type.enum] };
    const schema = field.nullable ? nullable(value) : value;
    properties[field.name] = field.description ? { ...schema, description: field.description } : schema;
  }
  return { type: 'object', description, properties, required: fields.filter((f) => !f.optional).map((f) => f.name), additionalProperties: false };
}

export const versionActorSchema = (): JsonSchema =>
  workflowObjectSchema(VERSION_ACTOR_FIELDS, 'Who made a version: the user or API key (never a role or scopes) and where the change came from.');
export const scheduledActionSchema = (): JsonSchema => workflowObjectSchema(SCHEDULED_ACTION_FIELDS, 'A scheduled publish or unpublish of one record or global.');
export const previewLinkSchema = (): JsonSchema => workflowObjectSchema(PREVIEW_LINK_FIELDS, 'A link that shows one working copy to anyone holding it, until it expires or is revoked.');

/** `{ data: [scheduled actions] }`: a record's scheduled actions, every status, soonest first. */
export function scheduleListSchema(item: string): JsonSchema {
  return {
    type: 'object',
    description: 'The scheduled actions of a record, pending, done, failed and cancelled.',
    properties: { data: { type: 'array', items: ref(item) } },
    required: ['data'],
    additionalProperties: false,
  };
}

const summaryProperties = (): Record<string, JsonSchema> => ({
  version: { type: 'integer', minimum: 1, description: "The record's version number: 1, 2, 3... in the order made, never reused (not the record's `_rev`)." },
  op: { type: 'string', enum: [...VERSION_OPS] },
  createdAt: { type: 'string', format: 'date-time' },
  actor: ref(VERSION_ACTOR_NAME),
  changedFields: { type: 'array', items: { type: 'string' }, description: 'The fields the change wrote that the caller may read.' },
});

/** One item of a record's history (`<Slug>VersionSummary`). */
export function versionSummarySchema(slug: string): JsonSchema {
  const properties = summaryProperties();
  return { type: 'object', description: `One version of a record of ${slug}, without the record.`, properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * One version with its record (`<Slug>Version`): `doc` is the record as it was, shaped for the caller like any
 * record it reads (`record`, a reference). On a drafts collection a version may hold a working copy, which
 * need not pass the required fields yet: there `doc` is the working copy's schema without its `_status`.
 */
export function versionSchema(slug: string, doc: JsonSchema): JsonSchema {
  const properties = { ...summaryProperties(), doc };
  return { type: 'object', description: `One version of a record of ${slug}, with the record as it was then.`, properties, required: Object.keys(properties), additionalProperties: false };
}

const versionPoint = (what: string): JsonSchema => ({
  anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['current', 'draft'] }, { type: 'null' }],
  description: `${what}: a version number, \`current\` (the published record) or \`draft\` (the working copy); null when there is none (the version before version 1).`,
});

/** `{ from, to, changes }` (`<Slug>VersionDiff`): the readable fields that differ, with their two values. */
export function versionDiffSchema(slug: string): JsonSchema {
  return {
    type: 'object',
    description: `What differs between two versions of a record of ${slug} (or a version and the published record or working copy): readable fields only.`,
    properties: {
      from: versionPoint('The older side (`against`)'),
      to: versionPoint('The version asked for'),
      changes: {
        type: 'array',
        items: {
          type: 'object',
          properties: { field: { type: 'string' }, before: { description: 'The value in `from` (null: unset)' }, after: { description: 'The value in `to` (null: unset)' } },
          required: ['field', 'before', 'after'],
          additionalProperties: false,
        },
      },
    },
    required: ['from', 'to', 'changes'],
    additionalProperties: false,
  };
}

/**
 * A working copy (`<Slug>Draft`) from the record's schema: every field may be unset (required fields wait for
 * publish), so none is required and each may be null, except the id and timestamps; plus `_status`.
 * `withStatus: false` gives the same without `_status`: a version's record on a drafts collection.
 */
export function draftSchema(record: JsonSchema, slug: string, withStatus = true): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(record.properties as Record<string, JsonSchema>).map(([name, schema]) => [name, SYSTEM.includes(name) || allowsNull(schema) ? schema : nullable(schema)]),
  );
  const required = (record.required as string[]).filter((name) => SYSTEM.includes(name));
  const status: JsonSchema = {
    type: 'string',
    enum: [...DRAFT_STATUSES],
    description: '`draft`: never published; `published`: the same as the published record; `changed`: differs from it.',
  };
  return {
    type: 'object',
    description: withStatus
      ? `The working copy of a record of ${slug}: what publish would make public. Fields may be unset until then.`
      : `A record of ${slug} as a version holds it: the published record or a working copy (whose fields may be unset).`,
    properties: withStatus ? { ...properties, _status: status } : properties,
    required: withStatus ? [...required, '_status'] : required,
    additionalProperties: false,
  };
}

/** Whether a schema already takes null (a field that is not required, as a record shows it). */
function allowsNull(schema: JsonSchema): boolean {
  if (Array.isArray(schema.type)) return schema.type.includes('null');
  return Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some((option) => option.type === 'null');
}

/** The fields every stored record has, in a working copy too. */
const SYSTEM = ['id', 'createdAt', 'updatedAt'];
