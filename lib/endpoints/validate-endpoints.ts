// Checks `endpoints[]` once at start-up: each entry a function or a well-formed object endpoint (method,
// path, handler, schema, detail, scope, sideEffects), every problem named by its path like the rest of the
// config; the checked list is what the feature builds its routes from.
import type { ParsedOptions } from '../config/resolve-config';
import type { ContentConfig, EndpointFunction, EndpointObject, Scope } from '../config/types';
import { SCOPES } from '../operations/access';
import { generatedTypeNames } from '../schema/type-names';
import { isRecord } from '../util/is-record';
import { checkBodySchema } from './body-schema';
import { checkEndpointPath } from './endpoint-path';
import { RETRIED_METHODS } from './object-endpoint';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const BODY_METHODS = new Set(['post', 'put', 'patch']);
const ENDPOINT_KEYS = ['path', 'method', 'handler', 'schema', 'detail', 'scope', 'sideEffects'];
const SCHEMA_KEYS = ['name', 'body', 'response'];
const DETAIL_KEYS = ['summary', 'description', 'tags'];
/** An exported TypeScript identifier in PascalCase. */
const TYPE_NAME = /^[A-Z][A-Za-z0-9_]{0,99}$/;

function checkUnknownKeys(path: string, value: Record<string, unknown>, known: readonly string[], problems: string[]): void {
  for (const key of Object.keys(value)) if (!known.includes(key)) problems.push(`${path}.${key}: unknown option`);
}

function checkSchema(path: string, method: unknown, schema: unknown, problems: string[]): string | undefined {
  if (!isRecord(schema)) {
    problems.push(`${path}: must be an object with name, body and/or response`);
    return undefined;
  }
  checkUnknownKeys(path, schema, SCHEMA_KEYS, problems);
  if (schema.body !== undefined) {
    if (typeof method === 'string' && !BODY_METHODS.has(method)) problems.push(`${path}.body: a ${method.toUpperCase()} endpoint takes no body`);
    problems.push(...checkBodySchema(`${path}.body`, schema.body));
    if (schema.name === undefined) problems.push(`${path}.name: required with a body (the export name of its generated interface, e.g. "ContactForm")`);
  }
  if (schema.name !== undefined && (typeof schema.name !== 'string' || !TYPE_NAME.test(schema.name))) {
    problems.push(`${path}.name: must be a PascalCase identifier (e.g. "ContactForm")`);
    return undefined;
  }
  if (schema.response !== undefined && !isRecord(schema.response)) problems.push(`${path}.response: must be a JSON Schema object`);
  return typeof schema.name === 'string' ? schema.name : undefined;
}

function checkDetail(path: string, detail: unknown, problems: string[]): void {
  if (!isRecord(detail)) {
    problems.push(`${path}: must be an object with summary, description and/or tags`);
    return;
  }
  checkUnknownKeys(path, detail, DETAIL_KEYS, problems);
  for (const key of ['summary', 'description'] as const) {
    if (detail[key] !== undefined && typeof detail[key] !== 'string') problems.push(`${path}.${key}: must be a string`);
  }
  if (detail.tags !== undefined && !(Array.isArray(detail.tags) && detail.tags.every((t) => typeof t === 'string' && t.length > 0))) {
    problems.push(`${path}.tags: must be an array of non-empty strings`);
  }
}

/** The entries of `endpoints`, as the host listed them. */
export type EndpointEntries = readonly (EndpointFunction | EndpointObject)[];

/** Checks `endpoints` (functions are checked when they run, at contentRouter()); the options are its entries. */
export function parseEndpointsOptions(config: ContentConfig): ParsedOptions<EndpointEntries> {
  const problems = endpointsProblems(config);
  return { problems, options: problems.length ? [] : Object.freeze([...(config.endpoints ?? [])]) };
}

/** Every problem of the config's `endpoints`. */
function endpointsProblems(config: ContentConfig): string[] {
  const endpoints: unknown = config.endpoints;
  if (endpoints === undefined) return [];
  if (!Array.isArray(endpoints)) return ['endpoints: must be an array of functions and endpoint objects'];
  const problems: string[] = [];
  const typeNames = generatedTypeNames(config);
  const bodyNames = new Map<string, string>();
  endpoints.forEach((endpoint: unknown, index) => {
    const path = `endpoints[${index}]`;
    if (typeof endpoint === 'function') return;
    if (!isRecord(endpoint)) {
      problems.push(`${path}: must be a function (router, context) or an object with path, method and handler`);
      return;
    }
    checkUnknownKeys(path, endpoint, ENDPOINT_KEYS, problems);
    const why = checkEndpointPath(endpoint.path);
    if (why) problems.push(`${path}.path: ${why}`);
    if (typeof endpoint.method !== 'string' || !METHODS.includes(endpoint.method)) problems.push(`${path}.method: must be one of ${METHODS.join(', ')}`);
    if (typeof endpoint.handler !== 'function') problems.push(`${path}.handler: must be a function ({ db, query, params, body, user, req, res }) => value`);
    if (endpoint.detail !== undefined) checkDetail(`${path}.detail`, endpoint.detail, problems);
    if (endpoint.scope !== undefined && !SCOPES.includes(endpoint.scope as Scope)) problems.push(`${path}.scope: must be one of ${SCOPES.join(', ')}`);
    if (endpoint.sideEffects !== undefined) {
      if (typeof endpoint.sideEffects !== 'boolean') problems.push(`${path}.sideEffects: must be true or false`);
      else if (!RETRIED_METHODS.has(String(endpoint.method))) problems.push(`${path}.sideEffects: only post and patch endpoints take an Idempotency-Key, which it is about`);
    }
    if (endpoint.schema === undefined) return;
    const name = checkSchema(`${path}.schema`, endpoint.method, endpoint.schema, problems);
    if (name === undefined) return;
    const taken = bodyNames.get(name) ?? typeNames.get(name);
    if (taken) problems.push(`${path}.schema.name: "${name}" is already the generated type of ${taken}`);
    else bodyNames.set(name, path);
  });
  return problems;
}
