// Checks a ContentConfig and returns every problem, each named by its path
// (`collections[2].fields.author.relationTo: unknown collection "peoples"`), so a host fixes them in one go.
import { withAuthFields } from './auth-fields';
import { checkVersions } from './validate-versions';
import { COLLECTION_HOOKS, FIELD_ACCESS_OPS, FIELD_HOOKS, GLOBAL_FIELD_ACCESS_OPS, GLOBAL_HOOKS, checkFieldAccess, checkHooks } from './validate-hooks';
import { checkComputed } from './validate-computed';
import { checkIndexes, checkSortable } from './validate-indexes';
import type { CollectionConfig, ContentConfig, FieldConfig, GlobalConfig } from './types';
import { isRecord } from '../util/is-record';

const FIELD_TYPES = new Set([
  'text', 'string', 'textarea', 'email', 'number', 'boolean', 'date', 'datetime',
  'select', 'relationship', 'upload', 'array', 'json',
]);
const ARRAY_ITEM_TYPES = new Set(['text', 'string', 'textarea', 'email', 'number', 'boolean', 'date', 'datetime']);
const SLUG = /^[a-z][a-z0-9_-]{0,63}$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Path segments the router itself answers under, so no collection may take them. */
const RESERVED_SLUGS = new Set(['globals', 'docs', 'upload', 'uploads', 'ws', 'sse', 'schema', 'mcp']);
/** Names that are system fields, Mongo internals, or prototype keys. */
const RESERVED_FIELDS = new Set(['id', '_id', '__v', '_rev', 'createdAt', 'updatedAt', 'deletedAt', '__proto__', 'constructor', 'prototype']);
const ACCESS_OPS = ['read', 'create', 'update', 'delete', 'publish', 'readDrafts', 'readVersions'] as const;

type Problems = string[];

const BASE_FIELD_KEYS = ['type', 'required', 'unique', 'hidden', 'index', 'default', 'hooks', 'access'];
/** The options each field type takes beyond the base ones; anything else is a typo the host should hear about. */
export const FIELD_KEYS: Readonly<Record<string, readonly string[]>> = {
  text: ['minLength', 'maxLength'],
  string: ['minLength', 'maxLength'],
  textarea: ['minLength', 'maxLength'],
  email: ['minLength', 'maxLength'],
  number: ['min', 'max'],
  boolean: [],
  date: [],
  datetime: [],
  select: ['options', 'hasMany', 'maxItems'],
  relationship: ['relationTo', 'hasMany', 'maxItems'],
  upload: ['hasMany', 'maxItems'],
  array: ['of', 'maxItems'],
  json: [],
};
const TOP_KEYS = ['core', 'db', 'collections', 'globals', 'auth', 'security', 'uploads', 'realtime', 'idempotency', 'webhooks', 'audit', 'docs', 'mcp', 'endpoints', 'email', 'logger', 'warnings', 'clock'];
const WARNING_KEYS = ['unindexedSorts'];
/** Every option a collection takes (the README's one-line shape names them all). */
export const COLLECTION_KEYS: readonly string[] = Object.freeze([
  'slug', 'fields', 'auth', 'softDelete', 'cache', 'access', 'search', 'pagination', 'maxBatchSize', 'sortable', 'indexes', 'hooks',
  'requireIfMatch', 'collation', 'existing', 'buildIndexes', 'computed', 'versions',
]);
/** Every option a global takes. */
export const GLOBAL_KEYS: readonly string[] = Object.freeze(['slug', 'fields', 'access', 'hooks', 'requireIfMatch', 'computed', 'versions']);
/** Most items a list field's `maxItems` may allow: far more would not fit in one 16 MB document anyway. */
const MAX_ITEMS_LIMIT = 100_000;
/** A size as Express's body parser reads it (the `bytes` format): `100kb`, `1mb`, `1.5 MB`, `2048`. */
const SIZE = /^\s*\d+(?:\.\d+)?\s*(?:b|kb|mb|gb|tb|pb)?\s*$/i;
const API_KEYS = ['prefix', 'listFormat', 'bodyLimit', 'maxDepth', 'overLimit', 'maxRelationConditions', 'maxRelationDepth', 'maxRelationIds', 'maxBulk'];
/**
 * Most ids all relation conditions of one request may carry together (maxRelationIds x
 * maxRelationConditions): about 10 MB of filter, safely under MongoDB's 16 MB command limit.
 */
const MAX_RELATION_IDS_PER_REQUEST = 500_000;

/** Defaults of the relation-filter cost limits in `core.api` (resolveConfig applies them). */
export const RELATION_LIMIT_DEFAULTS = Object.freeze({ maxRelationConditions: 10, maxRelationDepth: 3, maxRelationIds: 10_000 });

const SECURITY_KEYS = ['rateLimit', 'trustedOrigins'];

/**
 * `security` itself and its `trustedOrigins` (the rate limit checks `security.rateLimit`). An origin must
 * be written exactly as a browser sends it in `Origin`, or it would never match: scheme, host and a port
 * that is not the scheme's default, lower case, no path, no trailing slash, no wildcard.
 */
function checkSecurity(security: unknown, problems: Problems): void {
  if (security === undefined) return;
  if (!isRecord(security)) {
    problems.push('security: must be an object { rateLimit, trustedOrigins }');
    return;
  }
  checkKnownKeys('security', security, SECURITY_KEYS, problems);
  const origins = security.trustedOrigins;
  if (origins === undefined) return;
  if (!Array.isArray(origins)) {
    problems.push('security.trustedOrigins: must be an array of origins such as "https://admin.example.com"');
    return;
  }
  origins.forEach((origin: unknown, i) => {
    // WHATWG URLs take `*` in a host: a wildcard subdomain would parse, and match nothing.
    if (typeof origin === 'string' && !origin.includes('*') && serializedOrigin(origin) === origin) return;
    const hint = typeof origin === 'string' ? serializedOrigin(origin) : undefined;
    problems.push(
      `security.trustedOrigins[${i}]: ${JSON.stringify(origin)} is not an origin as browsers send it (scheme://host[:port], no path, no trailing slash, no wildcard)` +
        (hint && hint !== origin ? `; did you mean "${hint}"?` : ''),
    );
  });
}

/** The origin of an http(s) URL as browsers serialize it; undefined for anything else. */
function serializedOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** `clock`: an object whose now() answers a valid Date (asked once here, so a wrong clock fails at start-up). */
function checkClock(clock: unknown, problems: Problems): void {
  if (clock === undefined) return;
  const rule = 'clock: must be an object { now(): Date } (default the system clock)';
  if (!isRecord(clock) || typeof clock.now !== 'function') return void problems.push(rule);
  let now: unknown;
  try {
    now = (clock as { now(): unknown }).now();
  } catch (error) {
    return void problems.push(`clock.now: threw ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) problems.push(`clock.now: must return a valid Date (got ${now instanceof Date ? 'an invalid Date' : typeof now})`);
}

/** Reports every key of `value` that is not in `known`, by path. */
function checkKnownKeys(path: string, value: Record<string, unknown>, known: readonly string[], problems: Problems): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.push(`${path ? `${path}.` : ''}${key}: unknown option`);
  }
}

function isPositiveInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** The relation-filter cost limits of `core.api`, alone and together. */
function checkRelationLimits(api: NonNullable<NonNullable<ContentConfig['core']>['api']>, problems: Problems): void {
  const { maxRelationConditions: conditions, maxRelationDepth: depth, maxRelationIds: ids } = api;
  if (conditions !== undefined && !isIntegerIn(conditions, 0, 200)) {
    problems.push('core.api.maxRelationConditions: must be an integer from 0 (no relation filters) to 200');
  }
  if (depth !== undefined && !isIntegerIn(depth, 1, 10)) problems.push('core.api.maxRelationDepth: must be an integer from 1 to 10');
  if (ids !== undefined && !isIntegerIn(ids, 1, MAX_RELATION_IDS_PER_REQUEST)) {
    problems.push(`core.api.maxRelationIds: must be an integer from 1 to ${MAX_RELATION_IDS_PER_REQUEST}`);
    return;
  }
  const total = (ids ?? RELATION_LIMIT_DEFAULTS.maxRelationIds) * (isIntegerIn(conditions, 0, 200) ? conditions : RELATION_LIMIT_DEFAULTS.maxRelationConditions);
  if (total > MAX_RELATION_IDS_PER_REQUEST) {
    problems.push(
      `core.api.maxRelationIds: times maxRelationConditions must be at most ${MAX_RELATION_IDS_PER_REQUEST} (the ids of one request must fit in a MongoDB command); got ${total}`,
    );
  }
}

/** `accessOps`: the field access rules the field's owner runs (a global's fields take no create rule). */
function checkField(path: string, name: string, field: FieldConfig, slugs: ReadonlySet<string>, problems: Problems, accessOps: readonly string[]): void {
  if (!FIELD_NAME.test(name) || RESERVED_FIELDS.has(name)) {
    problems.push(`${path}: "${name}" is not a valid field name (letters, digits, _; not a system field name)`);
  }
  if (!isRecord(field)) {
    problems.push(`${path}: must be an object with a type`);
    return;
  }
  // Read as given: a host's config is checked here, before its types can be trusted.
  const type: unknown = field.type;
  if (!(typeof type === 'string' && FIELD_TYPES.has(type))) {
    problems.push(`${path}.type: unknown field type "${String(type)}"`);
    return;
  }
  checkKnownKeys(path, field, [...BASE_FIELD_KEYS, ...FIELD_KEYS[field.type]], problems);
  for (const key of ['required', 'unique', 'hidden', 'index'] as const) {
    if (field[key] !== undefined && typeof field[key] !== 'boolean') problems.push(`${path}.${key}: must be a boolean`);
  }
  checkHooks(`${path}.hooks`, field.hooks, FIELD_HOOKS, problems);
  checkFieldAccess(`${path}.access`, field.access, problems, accessOps);
  if ('hasMany' in field && field.hasMany !== undefined && typeof field.hasMany !== 'boolean') {
    problems.push(`${path}.hasMany: must be a boolean`);
  }
  if (field.type === 'select') {
    const ok = Array.isArray(field.options) && field.options.length > 0 && field.options.every((o) => typeof o === 'string');
    if (!ok) problems.push(`${path}.options: a select field needs a non-empty array of strings`);
    else if (field.default !== undefined && typeof field.default !== 'function') {
      const defaults = Array.isArray(field.default) ? field.default : [field.default];
      for (const d of defaults) {
        if (!field.options.includes(d as string)) problems.push(`${path}.default: "${String(d)}" is not one of the options`);
      }
    }
  }
  if (field.type === 'relationship') {
    if (typeof field.relationTo !== 'string') problems.push(`${path}.relationTo: a relationship field needs relationTo`);
    else if (!slugs.has(field.relationTo)) problems.push(`${path}.relationTo: unknown collection "${field.relationTo}"`);
  }
  if ('maxItems' in field && field.maxItems !== undefined) {
    if (!isIntegerIn(field.maxItems, 1, MAX_ITEMS_LIMIT)) problems.push(`${path}.maxItems: must be an integer from 1 to ${MAX_ITEMS_LIMIT}`);
    else if (field.type !== 'array' && field.hasMany !== true) problems.push(`${path}.maxItems: only a list field (array, or hasMany) takes maxItems`);
  }
  const of: unknown = field.type === 'array' ? field.of : undefined;
  if (of !== undefined && !(typeof of === 'string' && ARRAY_ITEM_TYPES.has(of))) {
    problems.push(`${path}.of: unknown array element type "${typeof of === 'string' ? of : JSON.stringify(of)}"`);
  }
  if ('minLength' in field || 'maxLength' in field) {
    const text = field as { minLength?: unknown; maxLength?: unknown };
    for (const key of ['minLength', 'maxLength'] as const) {
      if (text[key] !== undefined && !(Number.isInteger(text[key]) && (text[key] as number) >= 0)) {
        problems.push(`${path}.${key}: must be a non-negative integer`);
      }
    }
  }
  if (field.type === 'number') {
    for (const key of ['min', 'max'] as const) {
      if (field[key] !== undefined && !Number.isFinite(field[key])) problems.push(`${path}.${key}: must be a finite number`);
    }
  }
}

function checkFields(path: string, fields: unknown, slugs: ReadonlySet<string>, problems: Problems, accessOps: readonly string[] = FIELD_ACCESS_OPS): void {
  if (!isRecord(fields)) {
    problems.push(`${path}: must be an object mapping field names to field configs`);
    return;
  }
  for (const [name, field] of Object.entries(fields)) {
    checkField(`${path}.${name}`, name, field as FieldConfig, slugs, problems, accessOps);
  }
}

/** `computed` of a collection or global, against its stored fields (an auth collection's built-in ones too) and its hooks. */
function checkComputedOf(path: string, owner: { fields?: unknown; hooks?: { afterRead?: unknown }; computed?: unknown }, auth: boolean, problems: Problems): void {
  const fields = isRecord(owner.fields) ? (auth ? withAuthFields(owner.fields as Record<string, FieldConfig>) : owner.fields) : {};
  const afterRead = isRecord(owner.hooks) ? owner.hooks.afterRead : undefined;
  checkComputed(`${path}.computed`, owner.computed, {
    storedFields: new Set(Object.keys(fields)),
    hasAfterRead: Array.isArray(afterRead) && afterRead.length > 0,
    validName: (name) => FIELD_NAME.test(name) && !RESERVED_FIELDS.has(name),
  }, problems);
}

function checkAccess(path: string, access: unknown, ops: readonly string[], problems: Problems): void {
  if (access === undefined) return;
  if (!isRecord(access)) {
    problems.push(`${path}: must be an object of access functions`);
    return;
  }
  for (const [op, fn] of Object.entries(access)) {
    if (!ops.includes(op)) problems.push(`${path}.${op}: unknown access operation (expected ${ops.join(', ')})`);
    else if (typeof fn !== 'function') problems.push(`${path}.${op}: must be a function`);
  }
}

function checkSlug(path: string, slug: unknown, seen: Set<string>, problems: Problems): void {
  if (typeof slug !== 'string' || !SLUG.test(slug)) {
    problems.push(`${path}.slug: must match ${SLUG} (got ${JSON.stringify(slug)})`);
  } else if (RESERVED_SLUGS.has(slug)) {
    problems.push(`${path}.slug: "${slug}" is reserved by the router`);
  } else if (seen.has(slug)) {
    problems.push(`${path}.slug: duplicate slug "${slug}"`);
  } else {
    seen.add(slug);
  }
}

function checkCollection(path: string, c: CollectionConfig, slugs: ReadonlySet<string>, problems: Problems): void {
  checkKnownKeys(path, c as unknown as Record<string, unknown>, COLLECTION_KEYS.concat('drafts'), problems);
  checkVersions(path, c as unknown as Record<string, unknown>, Boolean(c.auth), problems);
  if (c.softDelete !== undefined && typeof c.softDelete !== 'boolean') problems.push(`${path}.softDelete: must be a boolean`);
  for (const key of ['requireIfMatch', 'existing', 'buildIndexes'] as const) {
    if (c[key] !== undefined && typeof c[key] !== 'boolean') problems.push(`${path}.${key}: must be a boolean`);
  }
  checkCollation(`${path}.collation`, c.collation, problems);
  checkFields(`${path}.fields`, c.fields, slugs, problems);
  checkAccess(`${path}.access`, c.access, ACCESS_OPS, problems);
  checkHooks(`${path}.hooks`, c.hooks, COLLECTION_HOOKS, problems);
  checkComputedOf(path, c, Boolean(c.auth), problems);
  if (c.pagination !== undefined && !isRecord(c.pagination)) {
    problems.push(`${path}.pagination: must be an object { defaultLimit, maxLimit }`);
  } else if (c.pagination !== undefined) {
    checkKnownKeys(`${path}.pagination`, c.pagination, ['defaultLimit', 'maxLimit'], problems);
    const { defaultLimit, maxLimit } = c.pagination;
    if (defaultLimit !== undefined && !isPositiveInt(defaultLimit)) problems.push(`${path}.pagination.defaultLimit: must be an integer >= 1`);
    if (maxLimit !== undefined && !isPositiveInt(maxLimit)) problems.push(`${path}.pagination.maxLimit: must be an integer >= 1`);
    if (isPositiveInt(defaultLimit) && isPositiveInt(maxLimit) && (defaultLimit as number) > (maxLimit as number)) {
      problems.push(`${path}.pagination.defaultLimit: must not exceed maxLimit`);
    }
  }
  if (c.maxBatchSize !== undefined && !isPositiveInt(c.maxBatchSize)) problems.push(`${path}.maxBatchSize: must be an integer >= 1`);
  checkSortable(path, c, problems);
  checkIndexes(path, c, problems);
  if (c.search !== undefined) {
    if (!Array.isArray(c.search)) problems.push(`${path}.search: must be an array of field names`);
    else if (isRecord(c.fields)) {
      // Auth collections also search their built-in fields (email, name).
      const fields: Record<string, FieldConfig> = c.auth ? withAuthFields(c.fields) : c.fields;
      for (const name of c.search) {
        const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
        if (!field) problems.push(`${path}.search: unknown field "${name}"`);
        else if (field.hidden) problems.push(`${path}.search: hidden field "${name}" cannot be searched`);
        else if (!['text', 'string', 'textarea', 'email', 'select'].includes(field.type)) {
          problems.push(`${path}.search: field "${name}" is not a text field`);
        }
      }
    }
  }
}

const COLLATION_CHOICES: Readonly<Record<string, readonly unknown[]>> = {
  strength: [1, 2, 3, 4, 5],
  caseFirst: ['upper', 'lower', 'off'],
  alternate: ['non-ignorable', 'shifted'],
  maxVariable: ['punct', 'space'],
};
const COLLATION_FLAGS = ['caseLevel', 'numericOrdering', 'backwards', 'normalization'];

/**
 * ICU's collation types by the names a MongoDB locale's `@collation=` takes (the old ICU spellings, not the
 * BCP 47 ones Intl uses). Whether a locale has the variant is the server's to say; a misspelt one is refused here.
 */
const COLLATION_VARIANTS: ReadonlySet<string> = new Set([
  'big5han', 'compat', 'dictionary', 'direct', 'ducet', 'emoji', 'eor', 'gb2312han', 'phonebook', 'phonetic',
  'pinyin', 'private-kana', 'reformed', 'search', 'searchjl', 'standard', 'stroke', 'traditional', 'unihan', 'zhuyin',
]);

/**
 * Why MongoDB would refuse the locale ID, or undefined. The server takes an ID only when ICU would use it as
 * it is spelt: `en_US` (never `en-US` or `EN`), a locale ICU has data for rather than falls back from
 * (`en_ZZ` is `en`), and after `@` only `collation=` and one of ICU's collation types.
 */
function localeProblem(locale: string): string | undefined {
  const [id, ...after] = locale.split('@');
  const keywords = after.at(0);
  if (keywords !== undefined) {
    const variant = /^collation=(.+)$/.exec(keywords)?.[1];
    if (variant === undefined || after.length > 1) return 'only a collation variant may follow "@" ("de@collation=phonebook")';
    if (!COLLATION_VARIANTS.has(variant)) return `unknown collation variant "${variant}"`;
  }
  // ICU's spelling: a lower-case language, then a title-case script, an upper-case region, a variant (POSIX).
  const parts = /^([a-z]{2,3})(?:_([A-Z][a-z]{3}))?(?:_([A-Z]{2}|[0-9]{3}))?(?:_(POSIX))?$/.exec(id);
  if (!parts) {
    const spelt = icuSpelling(id);
    return spelt && spelt !== id ? `MongoDB takes locale IDs as ICU spells them: "${spelt}", not "${id}"` : `unknown locale "${locale}"`;
  }
  const [, language, script, region] = parts;
  const tag = [language, script, region].filter(Boolean).join('-');
  // The locale ICU (through Intl) would use: a fallback (a region it has no data for) is not the ID asked for.
  let resolved: string | undefined;
  try {
    resolved = new Intl.Collator(tag, { localeMatcher: 'lookup' }).resolvedOptions().locale;
  } catch {
    resolved = undefined;
  }
  return resolved === tag ? undefined : `unknown locale "${locale}"`;
}

/** The ID as ICU spells the same locale (`en-US` is `en_US`), or undefined when it names none. */
function icuSpelling(id: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(id.replace(/_/g, '-'));
    const { language, script, region } = new Intl.Locale(canonical);
    return [language, script, region].filter(Boolean).join('_');
  } catch {
    return undefined;
  }
}

/** A MongoDB collation, checked here so a typo is a start-up error rather than every query's failure. */
function checkCollation(path: string, collation: unknown, problems: Problems): void {
  if (collation === undefined) return;
  if (!isRecord(collation)) {
    problems.push(`${path}: must be an object { locale, ... }`);
    return;
  }
  checkKnownKeys(path, collation, ['locale', ...Object.keys(COLLATION_CHOICES), ...COLLATION_FLAGS], problems);
  const { locale } = collation;
  if (locale === undefined) problems.push(`${path}.locale: required`);
  else if (typeof locale !== 'string') problems.push(`${path}.locale: must be a string`);
  else if (locale === 'simple') {
    // MongoDB refuses any other option beside it.
    if (Object.keys(collation).length > 1) problems.push(`${path}: the "simple" locale (code-point order) takes no other option`);
  } else {
    const problem = localeProblem(locale);
    if (problem) problems.push(`${path}.locale: ${problem}`);
  }
  for (const [key, choices] of Object.entries(COLLATION_CHOICES)) {
    const value = collation[key];
    if (value !== undefined && !choices.includes(value)) {
      const listed = choices.map((choice) => (typeof choice === 'string' ? `"${choice}"` : String(choice)));
      problems.push(`${path}.${key}: must be ${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}`);
    }
  }
  for (const key of COLLATION_FLAGS) {
    if (collation[key] !== undefined && typeof collation[key] !== 'boolean') problems.push(`${path}.${key}: must be a boolean`);
  }
  // Combinations the server refuses (every locale's default strength is 3, caseLevel false).
  const strength = collation.strength ?? 3;
  if (collation.backwards === true && strength === 1) problems.push(`${path}.backwards: MongoDB refuses backwards at strength 1 (it orders secondary differences)`);
  if ((collation.caseFirst === 'upper' || collation.caseFirst === 'lower') && collation.caseLevel !== true && (strength === 1 || strength === 2)) {
    problems.push(`${path}.caseFirst: MongoDB refuses "upper" or "lower" unless strength is 3 or more or caseLevel is true`);
  }
}

function checkGlobal(path: string, g: GlobalConfig, slugs: ReadonlySet<string>, problems: Problems): void {
  checkKnownKeys(path, g as unknown as Record<string, unknown>, GLOBAL_KEYS.concat('drafts'), problems);
  checkVersions(path, g as unknown as Record<string, unknown>, false, problems);
  checkFields(`${path}.fields`, g.fields, slugs, problems, GLOBAL_FIELD_ACCESS_OPS);
  checkAccess(`${path}.access`, g.access, ['read', 'update', 'publish', 'readDrafts', 'readVersions'], problems);
  checkHooks(`${path}.hooks`, g.hooks, GLOBAL_HOOKS, problems);
  checkComputedOf(path, g, false, problems);
  if (g.requireIfMatch !== undefined && typeof g.requireIfMatch !== 'boolean') problems.push(`${path}.requireIfMatch: must be a boolean`);
}

/** What a feature's options parser answers: its problems, named by path, and its resolved options. */
export interface ParsedOptions<O> {
  readonly problems: string[];
  /** Meaningful only when there are no problems anywhere in the config (the router is not built otherwise). */
  readonly options: O;
}

/** A feature's one pass over its options: checks and resolves them from the host's config together. */
export type OptionsParser<O> = (raw: ContentConfig) => ParsedOptions<O>;

/** A feature as the config sees it: a name, and optionally its options parser. */
export interface OptionsOwner {
  readonly name: string;
  readonly options?: OptionsParser<unknown>;
}

/** The config's problems (core checks, then each feature's) and each feature's resolved options, by name. */
export interface ParsedConfig {
  readonly problems: string[];
  readonly features: ReadonlyMap<string, unknown>;
}

/** Returns every problem in the config (core checks, then each parser's); empty means valid. */
export function validateConfig(config: ContentConfig, parsers: readonly OptionsParser<unknown>[] = []): string[] {
  return parseConfig(config, parsers.map((options, i) => ({ name: String(i), options }))).problems;
}

/**
 * Runs the core checks, then each feature's options parser once: every problem of the config, and each
 * feature's resolved options. Features are parsed only over a config whose collections and globals are lists.
 */
export function parseConfig(config: ContentConfig, features: readonly OptionsOwner[] = []): ParsedConfig {
  const problems = coreProblems(config);
  const options = new Map<string, unknown>();
  if (!isRecord(config) || !Array.isArray(config.collections ?? []) || !Array.isArray(config.globals ?? [])) return { problems, features: options };
  // Features (auth, ...) check and resolve their own options; config/ does not import them.
  for (const feature of features) {
    if (!feature.options) continue;
    const parsed = feature.options(config);
    problems.push(...parsed.problems);
    options.set(feature.name, parsed.options);
  }
  return { problems, features: options };
}

/** The core's problems: everything but the features' own options. */
function coreProblems(config: ContentConfig): Problems {
  const problems: Problems = [];
  const given: unknown = config; // a host's config, checked before its types can be trusted
  if (!isRecord(given)) return ['config: must be an object'];

  checkKnownKeys('', given, TOP_KEYS, problems);
  const db = config.db as Record<string, unknown> | undefined;
  if (!isRecord(db)) problems.push('db: required, { connection } (the host\'s Mongoose connection) or { uri }');
  else {
    checkKnownKeys('db', db, ['connection', 'uri', 'options', 'requestTimeoutMS'], problems);
    const deadline = db.requestTimeoutMS;
    if (deadline !== undefined && deadline !== false && !(Number.isInteger(deadline) && (deadline as number) >= 100 && (deadline as number) <= 600_000)) {
      problems.push('db.requestTimeoutMS: must be a whole number of ms from 100 to 600000, or false');
    }
    if (!db.connection && typeof db.uri !== 'string') problems.push('db: needs a Mongoose connection or a uri string');
    else if (db.connection && db.uri !== undefined) problems.push('db: give either connection or uri, not both');
  }

  if (config.core !== undefined) {
    if (!isRecord(config.core)) problems.push('core: must be an object { api }');
    else {
      checkKnownKeys('core', config.core, ['api'], problems);
      if (config.core.api !== undefined && !isRecord(config.core.api)) problems.push('core.api: must be an object');
      else if (config.core.api) checkKnownKeys('core.api', config.core.api, API_KEYS, problems);
    }
  }
  const api = isRecord(config.core) && isRecord(config.core.api) ? config.core.api : undefined;
  if (api?.prefix !== undefined && (typeof api.prefix !== 'string' || !api.prefix.startsWith('/'))) {
    problems.push('core.api.prefix: must be a path starting with "/"');
  }
  if (api?.listFormat !== undefined && !['data', 'docs'].includes(api.listFormat)) {
    problems.push('core.api.listFormat: must be "data" or "docs"');
  }
  if (api?.maxDepth !== undefined && !(Number.isInteger(api.maxDepth) && api.maxDepth >= 0 && api.maxDepth <= 10)) {
    problems.push('core.api.maxDepth: must be an integer from 0 to 10');
  }
  if (api) checkRelationLimits(api, problems);
  // Bounded so the selected records' ids always fit in one MongoDB command.
  if (api?.maxBulk !== undefined && !isIntegerIn(api.maxBulk, 1, 100_000)) problems.push('core.api.maxBulk: must be an integer from 1 to 100000');
  if (api?.overLimit !== undefined && !['reject', 'clamp'].includes(api.overLimit)) {
    problems.push('core.api.overLimit: must be "reject" or "clamp"');
  }
  if (api?.bodyLimit !== undefined && !((typeof api.bodyLimit === 'string' && SIZE.test(api.bodyLimit)) || (typeof api.bodyLimit === 'number' && api.bodyLimit > 0))) {
    problems.push('core.api.bodyLimit: must be a size such as "1mb" or a number of bytes');
  }
  checkSecurity(config.security, problems);
  if (config.logger !== undefined && !(isRecord(config.logger) && typeof config.logger.error === 'function' && typeof config.logger.warn === 'function')) {
    problems.push('logger: must be an object with error and warn functions (info optional)');
  }
  checkClock(config.clock, problems);
  if (config.warnings !== undefined) {
    if (!isRecord(config.warnings)) problems.push('warnings: must be an object { unindexedSorts?: boolean }');
    else {
      checkKnownKeys('warnings', config.warnings, WARNING_KEYS, problems);
      if (config.warnings.unindexedSorts !== undefined && typeof config.warnings.unindexedSorts !== 'boolean') {
        problems.push('warnings.unindexedSorts: must be a boolean');
      }
    }
  }

  const collections = config.collections ?? [];
  const globals = config.globals ?? [];
  if (!Array.isArray(collections)) problems.push('collections: must be an array');
  if (!Array.isArray(globals)) problems.push('globals: must be an array');
  if (!Array.isArray(collections) || !Array.isArray(globals)) return problems;

  const seen = new Set<string>();
  collections.forEach((c, i) => checkSlug(`collections[${i}]`, isRecord(c) ? c.slug : undefined, seen, problems));
  const slugs: ReadonlySet<string> = new Set(seen);
  collections.forEach((c, i) => {
    if (isRecord(c)) checkCollection(`collections[${i}]`, c, slugs, problems);
    else problems.push(`collections[${i}]: must be an object`);
    // A versioned collection keeps its history (and working copies) in `<slug>_versions` (`<slug>_drafts`).
    if (isRecord(c) && c.versions && typeof c.slug === 'string') {
      for (const sibling of [`${c.slug}_versions`, `${c.slug}_drafts`]) {
        if (slugs.has(sibling)) problems.push(`collections[${i}].versions: the collection "${sibling}" would share the MongoDB collection its versions or drafts are kept in`);
      }
    }
  });
  const globalSlugs = new Set<string>();
  globals.forEach((g, i) => {
    checkSlug(`globals[${i}]`, isRecord(g) ? g.slug : undefined, globalSlugs, problems);
    if (isRecord(g)) checkGlobal(`globals[${i}]`, g, slugs, problems);
  });

  if (config.auth?.fromRequest !== undefined && typeof config.auth.fromRequest !== 'function') {
    problems.push('auth.fromRequest: must be a function');
  }
  return problems;
}
