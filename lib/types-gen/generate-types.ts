// Writes the TypeScript declarations of a config: per collection its record, create and update input,
// per global its record and update input (with `versions`, its history's types, and with drafts its working
// copy's), and per custom endpoint body schema an interface under its name.
// Pure (config in, source text out), so the CLI, a build script and the tests share it.
import type { ContentConfig, EndpointBodyProperty, EndpointBodySchema } from '../config/types';
import { describeCollection, describeGlobal } from '../schema/describe-collection';
import type { CollectionDescriptor, FieldDescriptor } from '../schema/descriptors';
import { FILE_RECORD_FIELDS, FILE_RECORD_NAME, type FileRecordValue } from '../schema/file-record';
import { collectionTypeName, globalTypeName, workflowTypeNames } from '../schema/type-names';
import {
  DRAFT_STATUSES,
  PREVIEW_LINK_FIELDS,
  PREVIEW_LINK_NAME,
  SCHEDULED_ACTION_FIELDS,
  SCHEDULED_ACTION_NAME,
  VERSION_ACTOR_FIELDS,
  VERSION_ACTOR_NAME,
  VERSION_OPS,
  type WorkflowField,
} from '../schema/workflow-shapes';

/** Thrown when two declarations would get the same name. */
export class TypeNameConflictError extends Error {
  constructor(name: string, first: string, second: string) {
    super(`two generated types would be named "${name}": ${first} and ${second}`);
    this.name = 'TypeNameConflictError';
  }
}

export interface GenerateTypesOptions {
  /** Named in the file's header comment (e.g. the config file path). Default: none. */
  source?: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A JSDoc line; `*\/` inside the text would end the comment early. */
function doc(text: string, indent = ''): string {
  return `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`;
}

function literalUnion(options: readonly string[]): string {
  return options.map((o) => JSON.stringify(o)).join(' | ');
}

/** Wraps an element type as an array, parenthesising unions. */
function arrayOf(type: string): string {
  return type.includes(' | ') ? `Array<${type}>` : `${type}[]`;
}

type Helper = 'JsonValue' | typeof FILE_RECORD_NAME | 'UploadedFile' | 'VersionOp' | typeof VERSION_ACTOR_NAME | 'DraftStatus' | typeof SCHEDULED_ACTION_NAME | typeof PREVIEW_LINK_NAME;

/** Tracks which helper types the output needs and which names are taken. */
interface Emitter {
  names: Map<string, string>;
  helpers: Set<Helper>;
  declare(name: string, owner: string): void;
}

function createEmitter(): Emitter {
  const names = new Map<string, string>();
  return {
    names,
    helpers: new Set(),
    declare(name, owner) {
      const taken = names.get(name);
      if (taken) throw new TypeNameConflictError(name, taken, owner);
      names.set(name, owner);
    },
  };
}

/** The TypeScript type of one value of a field; `populated` adds the related record type for reads. */
function scalarType(field: FieldDescriptor, emitter: Emitter, populated: boolean): string {
  switch (field.type) {
    case 'text':
    case 'textarea':
    case 'email':
    case 'date':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'select':
      return literalUnion(field.options ?? []);
    case 'relationship':
      return populated && field.relationTo ? `string | ${collectionTypeName(field.relationTo)}` : 'string';
    case 'upload':
      // An id, or the file record when populated and the caller may read the file.
      if (!populated) return 'string';
      emitter.helpers.add(FILE_RECORD_NAME);
      return `string | ${FILE_RECORD_NAME}`;
    case 'array':
      return field.valueType === 'number' ? 'number' : field.valueType === 'boolean' ? 'boolean' : 'string';
    case 'json':
      emitter.helpers.add('JsonValue');
      return 'JsonValue';
  }
}

function fieldType(field: FieldDescriptor, emitter: Emitter, populated: boolean): string {
  const one = scalarType(field, emitter, populated);
  return field.isArray ? arrayOf(one) : one;
}

/**
 * The record's interface; `draft`: its working copy's, where every field may be unset until publish (so
 * optional and nullable, but the id and timestamps), with `_status`; `draft: 'doc'` the same without `_status`
 * (a version's record on a drafts collection, which may be a working copy).
 */
function recordInterface(name: string, descriptor: CollectionDescriptor, emitter: Emitter, what: string, draft?: 'copy' | 'doc'): string {
  // A global reads without an id: its slug is its identity.
  const visible = Object.values(descriptor.fields).filter((f) => !f.hidden && !(descriptor.isGlobal && f.name === 'id'));
  // Same order as records on the wire: id, the fields, then timestamps.
  const ordered = [...visible.filter((f) => f.name === 'id'), ...visible.filter((f) => !f.system), ...visible.filter((f) => f.system && f.name !== 'id')];
  let out = doc(what);
  out += `export interface ${name} {\n`;
  for (const field of ordered) {
    if (field.system) {
      if (field.name === 'id') out += '  id: string;\n';
      else if (field.name === 'deletedAt') out += '  deletedAt: string | null;\n';
      // A global never written yet reads as its defaults, with null timestamps; a document of an `existing`
      // collection written by something else may lack them.
      else out += `  ${field.name}: string${descriptor.isGlobal || descriptor.existing ? ' | null' : ''};\n`;
      continue;
    }
    // Every field is in every record (all of them unless `fields=` picks some): unset reads as null. A field
    // with a read rule is absent for the callers it refuses.
    const type = fieldType(field, emitter, true);
    if (draft) out += `  ${key(field.name)}?: ${type} | null;\n`;
    else out += `  ${key(field.name)}${field.config.access?.read ? '?' : ''}: ${field.required ? type : `${type} | null`};\n`;
  }
  // The keys the afterRead hooks add: always there only when declared `required`.
  for (const computed of Object.values(descriptor.computed)) {
    if (computed.config.description) out += doc(computed.config.description, '  ');
    const type = fieldType(computed, emitter, true);
    out += `  ${key(computed.name)}${computed.required ? `: ${type}` : `?: ${type} | null`};\n`;
  }
  if (draft === 'copy') {
    emitter.helpers.add('DraftStatus');
    out += doc('`draft`: never published; `published`: the same as the published record; `changed`: differs from it.', '  ');
    out += '  _status: DraftStatus;\n';
  }
  return `${out}}\n`;
}

/**
 * The history's types of a versioned collection or global (`base` its record type): one version's summary,
 * the version with its record, a diff of two versions; with drafts the working copy first.
 */
function workflowBlocks(base: string, descriptor: CollectionDescriptor, emitter: Emitter, owner: string, what: string): string[] {
  const names = workflowTypeNames(base, descriptor.versions);
  for (const name of Object.values(names)) if (name) emitter.declare(name, owner);
  emitter.helpers.add('VersionOp');
  emitter.helpers.add(VERSION_ACTOR_NAME);
  const blocks: string[] = [];
  if (names.draft) blocks.push(recordInterface(names.draft, descriptor, emitter, `The working copy of ${what}: what publish would make public (GET .../draft).`, 'copy'));
  let summary = doc(`One version of ${what}, without the record (an item of GET .../versions).`);
  summary += `export interface ${names.versionSummary} {\n`;
  summary += doc("1, 2, 3... in the order made, never reused (not the record's `_rev`).", '  ');
  summary += '  version: number;\n  op: VersionOp;\n  createdAt: string;\n  actor: VersionActor;\n';
  summary += doc('The fields the change wrote that the caller may read.', '  ');
  summary += '  changedFields: string[];\n}\n';
  blocks.push(summary);
  // A drafts collection's version may hold a working copy, whose fields may be unset.
  const docType = names.draft ? `Omit<${names.draft}, '_status'>` : base;
  blocks.push(`${doc(`One version of ${what} with the record as it was then (GET .../versions/:version).`)}export interface ${names.version} extends ${names.versionSummary} {\n  doc: ${docType};\n}\n`);
  let diff = doc(`What differs between two versions of ${what} (GET .../versions/:version/diff): readable fields only, each with its two values.`);
  diff += `export interface ${names.versionDiff} {\n`;
  diff += doc('A version number, `current` (the published record) or `draft` (the working copy); null: nothing (before version 1).', '  ');
  diff += "  from: number | 'current' | 'draft' | null;\n  to: number | 'current' | 'draft' | null;\n";
  diff += `  changes: Array<{ [K in keyof ${base}]-?: { field: K; before: ${base}[K] | null; after: ${base}[K] | null } }[keyof ${base}]>;\n}\n`;
  blocks.push(diff);
  return blocks;
}

const WORKFLOW_VALUE_TYPES = { text: 'string', integer: 'number', date: 'string' } as const;

/** An interface of one of the workflow's shared shapes (who made a version, a scheduled action, a preview link). */
function workflowInterface(name: string, fields: readonly WorkflowField[], what: string): string {
  let out = doc(what);
  out += `export interface ${name} {\n`;
  for (const field of fields) {
    if (field.description) out += doc(field.description, '  ');
    const type = typeof field.type === 'string' ? WORKFLOW_VALUE_TYPES[field.type] : literalUnion(field.type.enum);
    out += `  ${field.name}${field.optional ? '?' : ''}: ${type}${field.nullable ? ' | null' : ''};\n`;
  }
  return `${out}}\n`;
}

function inputInterface(name: string, descriptor: CollectionDescriptor, emitter: Emitter, what: string, allOptional: boolean): string {
  const writable = Object.values(descriptor.fields).filter((f) => !f.system && (!f.hidden || f.writeOnly === true));
  let out = doc(what);
  out += `export interface ${name} {\n`;
  for (const field of writable) {
    const optional = allOptional || !field.required || field.config.default !== undefined;
    // null clears a field that is not required (and is ignored on create).
    const type = fieldType(field, emitter, false);
    out += `  ${key(field.name)}${optional ? '?' : ''}: ${field.required ? type : `${type} | null`};\n`;
  }
  return `${out}}\n`;
}

function bodyPropertyType(property: EndpointBodyProperty, emitter: Emitter): string {
  switch (property.type) {
    case 'string':
      return property.enum?.length ? literalUnion(property.enum) : 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'email':
      return 'string';
    // The handler gets the Date the body's text was cast to.
    case 'date':
      return 'Date';
    case 'file':
      emitter.helpers.add('UploadedFile');
      return 'UploadedFile';
  }
}

function bodyInterface(name: string, body: EndpointBodySchema, emitter: Emitter, what: string): string {
  const required = new Set(body.required ?? []);
  let out = doc(what);
  out += `export interface ${name} {\n`;
  for (const [property, schema] of Object.entries(body.properties)) {
    if (schema.description) out += doc(schema.description, '  ');
    out += `  ${key(property)}${required.has(property) ? '' : '?'}: ${bodyPropertyType(schema, emitter)};\n`;
  }
  return `${out}}\n`;
}

const FILE_VALUE_TYPES: Record<FileRecordValue, string> = { id: 'string', text: 'string', integer: 'number', date: 'string' };

/** The file record's interface, from the one list of its fields the OpenAPI document reads too. */
function fileRecordInterface(): string {
  let out = doc('A stored file, as POST /upload answers it and as `depth` or `include` populate an upload field.');
  out += `export interface ${FILE_RECORD_NAME} {\n`;
  for (const field of FILE_RECORD_FIELDS) {
    if (field.description) out += doc(field.description, '  ');
    out += `  ${field.name}: ${FILE_VALUE_TYPES[field.type]}${field.nullable ? ' | null' : ''};\n`;
  }
  return `${out}}\n`;
}

const HELPERS: Record<Helper, string> = {
  JsonValue: `${doc('Any JSON value (fields of type json).')}export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\n`,
  [FILE_RECORD_NAME]: fileRecordInterface(),
  UploadedFile: `${doc('A file of a custom endpoint body, as its handler receives it (a Buffer on the server).')}export interface UploadedFile {\n  originalName: string;\n  mimeType: string;\n  size: number;\n  buffer: Uint8Array;\n}\n`,
  VersionOp: `${doc('What made a version.')}export type VersionOp = ${literalUnion(VERSION_OPS)};\n`,
  [VERSION_ACTOR_NAME]: workflowInterface(VERSION_ACTOR_NAME, VERSION_ACTOR_FIELDS, 'Who made a version: the user or API key and where the change came from.'),
  DraftStatus: `${doc("A working copy's status beside its published record.")}export type DraftStatus = ${literalUnion(DRAFT_STATUSES)};\n`,
  [SCHEDULED_ACTION_NAME]: workflowInterface(SCHEDULED_ACTION_NAME, SCHEDULED_ACTION_FIELDS, 'A scheduled publish or unpublish (POST and GET .../schedule).'),
  [PREVIEW_LINK_NAME]: workflowInterface(PREVIEW_LINK_NAME, PREVIEW_LINK_FIELDS, 'A link that shows one working copy to anyone holding it (POST .../preview).'),
};

/** The helpers in the order the file declares them. */
const HELPER_ORDER = ['JsonValue', FILE_RECORD_NAME, 'UploadedFile', 'VersionOp', VERSION_ACTOR_NAME, 'DraftStatus', SCHEDULED_ACTION_NAME, PREVIEW_LINK_NAME] as const satisfies readonly Helper[];

/**
 * The declarations of `config` as TypeScript source. Collection `posts` gives `Post` (record), `PostCreate`
 * and `PostUpdate`; global `site` gives `Site` and `SiteUpdate`; an endpoint body gives its `schema.name`.
 * Throws a TypeNameConflictError when two of these names coincide.
 */
export function generateTypes(config: Pick<ContentConfig, 'collections' | 'globals' | 'endpoints'>, options: GenerateTypesOptions = {}): string {
  const emitter = createEmitter();
  const blocks: string[] = [];
  for (const collection of config.collections ?? []) {
    const descriptor = describeCollection(collection);
    const name = collectionTypeName(collection.slug);
    const owner = `collection "${collection.slug}"`;
    emitter.declare(name, owner);
    emitter.declare(`${name}Create`, owner);
    emitter.declare(`${name}Update`, owner);
    blocks.push(recordInterface(name, descriptor, emitter, `A record of the "${collection.slug}" collection, as the API returns it (relationships as ids, or records when populated).`));
    blocks.push(inputInterface(`${name}Create`, descriptor, emitter, `The body that creates a record of "${collection.slug}".`, false));
    blocks.push(`${doc(`The body that updates a record of "${collection.slug}" (every field optional).`)}export type ${name}Update = Partial<${name}Create>;\n`);
    if (descriptor.versions) blocks.push(...workflowBlocks(name, descriptor, emitter, owner, `a record of "${collection.slug}"`));
  }
  for (const global of config.globals ?? []) {
    const descriptor = describeGlobal(global);
    const name = globalTypeName(global.slug);
    const owner = `global "${global.slug}"`;
    emitter.declare(name, owner);
    emitter.declare(`${name}Update`, owner);
    blocks.push(recordInterface(name, descriptor, emitter, `The "${global.slug}" global, as the API returns it.`));
    blocks.push(inputInterface(`${name}Update`, descriptor, emitter, `The body that updates the "${global.slug}" global.`, true));
    if (descriptor.versions) blocks.push(...workflowBlocks(name, descriptor, emitter, owner, `the "${global.slug}" global`));
  }
  // Scheduling and preview links come with drafts.
  if ([...(config.collections ?? []), ...(config.globals ?? [])].some((c) => typeof c.versions === 'object' && c.versions.drafts === true)) {
    emitter.helpers.add(SCHEDULED_ACTION_NAME);
    emitter.helpers.add(PREVIEW_LINK_NAME);
  }
  (config.endpoints ?? []).forEach((endpoint, index) => {
    if (typeof endpoint === 'function' || !endpoint.schema?.body || !endpoint.schema.name) return;
    const { name, body } = endpoint.schema;
    emitter.declare(name, `endpoints[${index}]`);
    blocks.push(bodyInterface(name, body, emitter, `The body of ${endpoint.method.toUpperCase()} ${endpoint.path}.`));
  });
  for (const helper of HELPER_ORDER) {
    if (emitter.helpers.has(helper)) {
      emitter.declare(helper, 'a helper type');
      blocks.push(HELPERS[helper]);
    }
  }
  const header = `// Generated by content-router generate:types${options.source ? ` from ${options.source}` : ''}. Do not edit: run the command again.\n`;
  return `${header}\n${blocks.join('\n')}`;
}
