// The `webhooks` option: checked and resolved in one pass at start-up, with every other config problem (a bad
// URL, an unknown event, a secret that is not `whsec_` + base64 of at least 24 bytes, a `where` or `view` on an
// unknown field, unknown keys, bad delays), to endpoints whose signer, event test, parsed `where` and view are
// built as they are checked.
import { Webhook } from 'standardwebhooks';
import type { ParsedOptions } from '../config/resolve-config';
import type { AuthUser, ContentConfig, WebhookEndpoint, WebhookView } from '../config/types';
import { ContentError } from '../errors';
import { parseSelect, parseWhere } from '../query';
import { findField } from '../query/find-field';
import type { WhereNode } from '../query/types';
import { describeCollections } from '../schema/describe-collection';
import type { SchemaRegistry } from '../schema/descriptors';
import { parseDuration } from '../util/duration';
import { isRecord } from '../util/is-record';

/** The change types a collection's records emit. */
export const CHANGE_TYPES = ['create', 'update', 'delete'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** One receiver, resolved. */
export interface ResolvedEndpoint {
  readonly url: string;
  /** Signs with the endpoint's secret (the standardwebhooks package). */
  readonly signer: Webhook;
  /** The event names it asked for, as configured. */
  readonly events: readonly string[];
  /** Whether it receives `<slug>.<type>`. */
  wants(slug: string, type: ChangeType): boolean;
  /** Its where, parsed against the collections it may apply to; undefined when it has none. */
  readonly where: ReadonlyMap<string, WhereNode> | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** How it sees records; undefined: as server code reads them (access overridden). */
  readonly view: ResolvedView | undefined;
}

/** An endpoint's view, resolved: the caller it reads as, and per collection the fields it selects. */
export interface ResolvedView {
  /** The caller whose field access and read hooks apply; null: access overridden. */
  readonly user: AuthUser | null;
  /** Per collection slug, the selected fields (`id` first), as a list's `fields` parameter gives them. */
  readonly select: ReadonlyMap<string, readonly string[]> | undefined;
}

export interface ResolvedWebhooks {
  readonly endpoints: readonly ResolvedEndpoint[];
  /** Waits before each retry (ms), before jitter. */
  readonly delays: readonly number[];
  readonly timeoutMs: number;
  readonly retentionMs: number;
  /** The collections some endpoint wants events of: only these are watched. */
  readonly slugs: ReadonlySet<string>;
}

const DEFAULT_DELAYS = [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000];
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETENTION_MS = 30 * 86_400_000;
const MAX_DELAYS = 20;
const MAX_DELAY_MS = 7 * 86_400_000;
const MIN_SECRET_BYTES = 24;
const TOP_KEYS = ['endpoints', 'retry', 'timeoutMs', 'retention'];
const ENDPOINT_KEYS = ['url', 'secret', 'events', 'where', 'headers', 'view'];
const VIEW_KEYS = ['user', 'fields'];
/** The signature's, the body's and the router's own headers, and those the HTTP client owns: an endpoint may not set them. */
const OWNED_HEADERS = /^(webhook-.*|content-.*|user-agent|host|connection|transfer-encoding|keep-alive|upgrade|expect|te|trailer)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An HTTP field value (RFC 9110): visible Latin-1 characters, spaces and tabs; fetch refuses anything else. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SLUG_EVENT = /^([a-z][a-z0-9_-]*)\.(create|update|delete|\*)$/;

/** The collections as the query layer sees them, to parse each endpoint's where against. */
function describeRegistry(config: ContentConfig): SchemaRegistry | undefined {
  try {
    return describeCollections(config.collections ?? []);
  } catch {
    // A collection broken enough not to describe is reported by the core checks.
    return undefined;
  }
}

function checkUrl(path: string, url: unknown, seen: Set<string>, problems: string[]): void {
  if (typeof url !== 'string') return void problems.push(`${path}.url: required, an http: or https: URL`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return void problems.push(`${path}.url: "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') problems.push(`${path}.url: must be an http: or https: URL (got ${parsed.protocol})`);
  // fetch refuses such a URL, and the delivery log would show it to every admin: credentials go in headers.
  else if (parsed.username || parsed.password) problems.push(`${path}.url: must not carry credentials (user:password@); send them in headers, e.g. { Authorization: 'Basic …' }`);
  else if (seen.has(url)) problems.push(`${path}.url: "${url}" is listed twice (one endpoint per URL; list every event it wants in its events)`);
  seen.add(url);
}

function checkSecret(path: string, secret: unknown, problems: string[]): void {
  const rule = `must be "whsec_" followed by the base64 of at least ${MIN_SECRET_BYTES} random bytes`;
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) return void problems.push(`${path}.secret: ${rule}`);
  const encoded = secret.slice('whsec_'.length);
  if (!BASE64.test(encoded) || Buffer.from(encoded, 'base64').length < MIN_SECRET_BYTES) problems.push(`${path}.secret: ${rule}`);
}

/** The slugs an endpoint's events name (every collection for `*`); problems for names that are not events. */
function checkEvents(path: string, events: unknown, registry: SchemaRegistry | undefined, problems: string[]): { slugs: Set<string>; explicitDelete: boolean } {
  const slugs = new Set<string>();
  let explicitDelete = false;
  if (!Array.isArray(events) || events.length === 0) {
    problems.push(`${path}.events: must be a non-empty array of event names ("posts.create", "posts.*", "*")`);
    return { slugs, explicitDelete };
  }
  events.forEach((event, i) => {
    if (event === '*') {
      for (const slug of registry?.keys() ?? []) slugs.add(slug);
      return;
    }
    const match = typeof event === 'string' ? SLUG_EVENT.exec(event) : null;
    if (!match) return void problems.push(`${path}.events[${i}]: ${JSON.stringify(event)} is not an event name ("<collection>.create", ".update", ".delete", "<collection>.*" or "*")`);
    if (registry && !registry.has(match[1])) return void problems.push(`${path}.events[${i}]: "${match[1]}" is not a collection`);
    slugs.add(match[1]);
    if (match[2] === 'delete') explicitDelete = true;
  });
  return { slugs, explicitDelete };
}

function checkHeaders(path: string, headers: unknown, problems: string[]): void {
  if (headers === undefined) return;
  if (!isRecord(headers)) return void problems.push(`${path}.headers: must be an object of header names to string values`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) problems.push(`${path}.headers.${name}: not a valid header name`);
    else if (OWNED_HEADERS.test(name)) problems.push(`${path}.headers.${name}: set by the router itself (the signature, the body and the connection's headers cannot be overridden)`);
    else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      problems.push(`${path}.headers.${name}: must be a string without line breaks or other control characters, in Latin-1`);
    }
  }
}

/** The endpoint's where, parsed against each collection it applies to; problems name the path. */
function parseEndpointWhere(path: string, where: unknown, slugs: ReadonlySet<string>, registry: SchemaRegistry, problems: string[]): Map<string, WhereNode> | undefined {
  if (where === undefined) return undefined;
  if (!isRecord(where)) {
    problems.push(`${path}.where: must be a where object`);
    return undefined;
  }
  const parsed = new Map<string, WhereNode>();
  for (const slug of slugs) {
    const collection = registry.get(slug);
    if (!collection) continue;
    try {
      const node = parseWhere(where, collection, registry, { param: 'where' });
      if (node) parsed.set(slug, node);
    } catch (error) {
      if (!(error instanceof ContentError)) throw error;
      // The query layer names the parameter path (`where.colour`): it is put under the endpoint's path.
      const on = slugs.size > 1 ? ` (on "${slug}")` : '';
      for (const detail of error.errors ?? [{ field: 'where', message: error.message }]) problems.push(`${path}.${detail.field ?? 'where'}: ${detail.message}${on}`);
    }
  }
  return parsed.size ? parsed : undefined;
}

/**
 * The endpoint's view, checked: a user object with an id, fields that every collection it receives shows
 * (hidden ones do not exist, as for a list's `fields`). Answers the fields selected per collection.
 */
function parseEndpointView(path: string, view: unknown, slugs: ReadonlySet<string>, registry: SchemaRegistry | undefined, problems: string[]): ResolvedView | undefined {
  if (view === undefined) return undefined;
  if (!isRecord(view)) return void problems.push(`${path}.view: must be an object { user?, fields? }`);
  problems.push(...Object.keys(view).filter((key) => !VIEW_KEYS.includes(key)).map((key) => `${path}.view.${key}: unknown option`));
  const { user, fields } = view as WebhookView;
  if (user === undefined && fields === undefined) return void problems.push(`${path}.view: must name a user, fields, or both ({ user: { id, role } }, { fields: ['title'] })`);
  if (user !== undefined && !(isRecord(user) && typeof user.id === 'string' && user.id !== '')) {
    problems.push(`${path}.view.user: must be a user object with a non-empty string id ({ id, role?, ... }, as access rules receive it)`);
  }
  if (fields === undefined) return { user: user ?? null, select: undefined };
  if (!Array.isArray(fields) || fields.length === 0 || !fields.every((name) => typeof name === 'string' && name !== '')) {
    return void problems.push(`${path}.view.fields: must be a non-empty array of field names`);
  }
  const select = new Map<string, readonly string[]>();
  for (const slug of slugs) {
    const collection = registry?.get(slug);
    if (!collection) continue;
    const on = slugs.size > 1 ? ` (on "${slug}")` : '';
    const unknown = fields.map((name, i) => [name, i] as const).filter(([name]) => !findField(collection, name));
    for (const [name, i] of unknown) problems.push(`${path}.view.fields[${i}]: unknown field "${name}"${on}`);
    if (unknown.length > 0) continue;
    // `fields` is a non-empty list of known names here, so it always selects.
    const selected = parseSelect(fields, collection);
    if (selected) select.set(slug, selected);
  }
  return { user: user ?? null, select };
}

function checkDelays(delays: unknown, problems: string[]): void {
  const rule = `must be an array of at most ${MAX_DELAYS} waits in ms, each an integer from 1 to ${MAX_DELAY_MS} (7 days)`;
  if (!Array.isArray(delays) || delays.length > MAX_DELAYS) return void problems.push(`webhooks.retry.delays: ${rule}`);
  delays.forEach((delay, i) => {
    if (!(Number.isInteger(delay) && delay >= 1 && delay <= MAX_DELAY_MS)) problems.push(`webhooks.retry.delays[${i}]: ${rule}`);
  });
}

/** One endpoint, checked (its problems added to `problems`); resolved when it has none. */
function parseEndpoint(path: string, endpoint: unknown, urls: Set<string>, registry: SchemaRegistry | undefined, problems: string[]): ResolvedEndpoint | undefined {
  if (!isRecord(endpoint)) return void problems.push(`${path}: must be an object { url, secret, events, where?, headers?, view? }`);
  const before = problems.length;
  problems.push(...Object.keys(endpoint).filter((key) => !ENDPOINT_KEYS.includes(key)).map((key) => `${path}.${key}: unknown option`));
  checkUrl(path, endpoint.url, urls, problems);
  checkSecret(path, endpoint.secret, problems);
  const { slugs, explicitDelete } = checkEvents(path, endpoint.events, registry, problems);
  checkHeaders(path, endpoint.headers, problems);
  if (endpoint.where !== undefined && explicitDelete) {
    problems.push(`${path}.where: a delete leaves no record to match a where against; receive deletes at an endpoint without one`);
  }
  const where = registry ? parseEndpointWhere(path, endpoint.where, slugs, registry, problems) : undefined;
  const view = parseEndpointView(path, endpoint.view, slugs, registry, problems);
  if (problems.length > before || !registry) return undefined;
  // Checked above, field by field: a problem would have returned before this.
  const { url, secret, events, headers } = endpoint as unknown as WebhookEndpoint;
  const every = events.includes('*');
  const named = new Set(events);
  const wants = (slug: string, type: ChangeType) => slugs.has(slug) && (every || named.has(`${slug}.*`) || named.has(`${slug}.${type}`));
  return Object.freeze({
    url,
    signer: new Webhook(secret),
    events: Object.freeze([...events]),
    // A where keeps deletes out: there is no record after them to match.
    wants: endpoint.where === undefined ? wants : (slug: string, type: ChangeType) => type !== 'delete' && wants(slug, type),
    where,
    headers: Object.freeze({ ...headers }),
    view,
  });
}

/** `webhooks.retry.delays`, checked; the defaults when absent. */
function parseRetry(retry: unknown, problems: string[]): readonly number[] {
  if (retry === undefined) return DEFAULT_DELAYS;
  if (!isRecord(retry)) {
    problems.push('webhooks.retry: must be an object { delays }');
    return DEFAULT_DELAYS;
  }
  problems.push(...Object.keys(retry).filter((key) => key !== 'delays').map((key) => `webhooks.retry.${key}: unknown option`));
  if (retry.delays === undefined) return DEFAULT_DELAYS;
  const before = problems.length;
  checkDelays(retry.delays, problems);
  // Checked by checkDelays: integers in range.
  return problems.length > before ? DEFAULT_DELAYS : (retry.delays as number[]);
}

/**
 * Checks and resolves `config.webhooks` in one pass: every problem named by path, and the endpoints with
 * their signer, event test, parsed `where` and view built once; the options are undefined without `webhooks`.
 */
export function parseWebhooksOptions(config: ContentConfig): ParsedOptions<ResolvedWebhooks | undefined> {
  const value: unknown = config.webhooks;
  if (value === undefined) return { problems: [], options: undefined };
  if (!isRecord(value)) return { problems: ['webhooks: must be an object { endpoints, retry?, timeoutMs?, retention? }'], options: undefined };
  const problems = Object.keys(value).filter((key) => !TOP_KEYS.includes(key)).map((key) => `webhooks.${key}: unknown option`);
  const registry = describeRegistry(config);
  // The delivery log's routes live under /webhooks: a collection of that slug would answer there too.
  if (registry?.has('webhooks')) problems.push('webhooks: a collection with the slug "webhooks" collides with the delivery log routes (/webhooks/deliveries)');
  const endpoints: ResolvedEndpoint[] = [];
  const slugs = new Set<string>();
  if (!Array.isArray(value.endpoints) || value.endpoints.length === 0) problems.push('webhooks.endpoints: must be a non-empty array of { url, secret, events }');
  else {
    const urls = new Set<string>();
    value.endpoints.forEach((endpoint: unknown, i) => {
      const resolved = parseEndpoint(`webhooks.endpoints[${i}]`, endpoint, urls, registry, problems);
      if (!resolved) return;
      endpoints.push(resolved);
      for (const slug of registry?.keys() ?? []) if (CHANGE_TYPES.some((type) => resolved.wants(slug, type))) slugs.add(slug);
    });
  }
  const delays = parseRetry(value.retry, problems);
  const timeoutMs = value.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const validTimeout = typeof timeoutMs === 'number' && Number.isInteger(timeoutMs) && timeoutMs >= 100 && timeoutMs <= 300_000;
  if (!validTimeout) problems.push('webhooks.timeoutMs: must be a whole number of ms from 100 to 300000');
  const retentionMs = value.retention === undefined ? DEFAULT_RETENTION_MS : parseDuration(value.retention);
  if (retentionMs === undefined || retentionMs < 1000 || retentionMs > 365 * 86_400_000) {
    problems.push('webhooks.retention: must be a duration from 1 s to 365 days ("30d", "12h", or a number of seconds)');
  } else if (value.retention !== undefined) {
    const schedule = delays.reduce((sum, delay) => sum + delay * 1.2, 0);
    if (retentionMs <= schedule) problems.push(`webhooks.retention: must outlast the retry schedule (about ${Math.ceil(schedule / 1000)} s), or deliveries expire while still being retried`);
  }
  if (problems.length || retentionMs === undefined || !validTimeout) return { problems, options: undefined };
  return {
    problems,
    options: Object.freeze({
      endpoints: Object.freeze(endpoints),
      delays: Object.freeze([...delays]),
      timeoutMs,
      retentionMs,
      slugs,
    }),
  };
}
