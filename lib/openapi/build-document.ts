// The OpenAPI 3.1 document, built from the descriptors and the final route table and nothing else:
// pure (no HTTP, no database), so it is unit-tested directly and cached by the feature per mount path.
import {
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type PathItemObject,
  type ResponseObject,
  type ResponsesObject,
  type SchemaObject,
  type SecurityRequirementObject,
  type SecuritySchemeObject,
} from 'openapi3-ts/oas31';
import type { QueryOptions } from '../config/resolve-config';
import type { SecurityScheme } from '../config/types';
import type { BodyShape, JsonSchema, RouteDef } from '../http/route-table';
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import { FILE_RECORD_NAME } from '../schema/file-record';
import { type ComponentNames, allocateComponentNames } from './component-names';
import { queryParameters } from './query-parameters';
import { collectionSchemas, inputSchema, ref } from './record-schemas';
import { SHARED_SCHEMAS, batchSchema, fileRecordSchema, listSchemas } from './shared-schemas';
import { PREVIEW_LINK_NAME, SCHEDULED_ACTION_NAME, VERSION_ACTOR_NAME } from '../schema/workflow-shapes';
import {
  draftSchema,
  previewLinkSchema,
  scheduleListSchema,
  scheduledActionSchema,
  versionActorSchema,
  versionDiffSchema,
  versionSchema,
  versionSummarySchema,
} from './workflow-schemas';

/** Everything the document is derived from. */
export interface DocumentSource {
  /** The collections (auth collections included), by slug. */
  registry: SchemaRegistry;
  globals: readonly CollectionDescriptor[];
  /** The final route table of every feature. */
  routes: readonly RouteDef[];
  query: QueryOptions;
  /** Every route counts against a rate limit (`security.rateLimit`), so every one may answer 429. Default false. */
  rateLimit?: boolean;
  /** The host's own auth (`docs.securitySchemes` and `docs.security`), listed beside the router's. Default none. */
  hostAuth?: { schemes: Readonly<Record<string, SecurityScheme>>; security: ReadonlyArray<Record<string, string[]>> };
  /** The `WWW-Authenticate` value of a 401; undefined: the router sends none. */
  challenge?: string;
  /**
   * Whether the router's own credentials (JWTs, API keys) exist, when `registry` does not show every collection
   * (a caller's document may leave the auth collection out). Default: whether `registry` has an auth collection.
   */
  ownAuth?: boolean;
  /**
   * The fields the caller may not set, left out of its create and update bodies (a caller's document: its
   * field write rules, the fields the router keeps for admins). Default none: every writable field.
   */
  writeDenied?: (descriptor: CollectionDescriptor, mode: 'create' | 'update') => readonly string[];
}

const PROBLEM_TYPE = 'application/problem+json';

/** Credentials of the package's own auth: JWT access tokens and API keys (as Bearer or X-API-Key). */
const SECURITY_SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from login, register or refresh.' },
  apiKeyBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'An API key (`ck_...`) as a Bearer token.' },
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key (`ck_...`) in the X-API-Key header.' },
} as const;
const AUTHENTICATED: SecurityRequirementObject[] = Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] }));

/** Headers some problems carry (a 401's challenge is the router's own, see buildOpenApiDocument). */
const PROBLEM_HEADERS: Partial<Record<number, Record<string, { description: string; schema: SchemaObject }>>> = {
  405: { Allow: { description: 'The methods the path serves', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
};

const RATE_LIMITED = 'over the rate limit (security.rateLimit): wait Retry-After seconds';

/** `/posts/:id` -> `/posts/{id}`, and the shape the dispatcher keys paths on (`posts/:`). */
function splitPath(path: string): { template: string; key: string; params: string[] } {
  const segments = path.split('/').filter(Boolean);
  return {
    template: `/${segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`,
    key: segments.map((s) => (s.startsWith(':') ? ':' : s)).join('/'),
    params: segments.filter((s) => s.startsWith(':')).map((s) => s.slice(1)),
  };
}

/** The first collection a route's list answer names: its page sizes bound `limit`/`perPage`. */
function listedCollection(route: RouteDef, registry: SchemaRegistry): CollectionDescriptor | undefined {
  for (const response of Object.values(route.responses)) {
    if (response.shape?.kind === 'list') return registry.get(response.shape.slug);
  }
  return undefined;
}

const ID_ONLY = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

/** A bulk write's answer around its records, with the count it names (`updated` or `deleted`); a dry run answers `data: []` and `meta.matched` alone. */
function bulkAnswerSchema(record: JsonSchema, done: 'updated' | 'deleted'): JsonSchema {
  const count = { type: 'integer', minimum: 0 };
  return {
    type: 'object',
    properties: {
      data: { type: 'array', items: record },
      meta: { type: 'object', properties: { matched: count, [done]: count, failed: count }, required: ['matched'] },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, status: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' } },
          required: ['id', 'status', 'code', 'message'],
        },
      },
    },
    required: ['data', 'meta'],
  };
}

/** The component names the routes' `named` shapes bring (the caller's schema's `CallerSchema`, ...). */
function namedSchemaNames(routes: readonly RouteDef[]): string[] {
  const names: string[] = [];
  const visit = (shape: BodyShape | undefined): void => {
    if (shape?.kind === 'named') names.push(...Object.keys(shape.schemas));
    else if (shape?.kind === 'one-of') shape.shapes.forEach(visit);
    else if (shape?.kind === 'object') Object.values(shape.properties).forEach(visit);
  };
  for (const route of routes) {
    visit(route.body?.shape);
    for (const response of Object.values(route.responses)) visit(response.shape);
  }
  return names;
}

/** Builds the OpenAPI 3.1 document; `serverUrl` is where the host mounted the router (`req.baseUrl`). */
export function buildOpenApiDocument(source: DocumentSource, serverUrl: string): OpenAPIObject {
  const { registry, globals, routes } = source;
  // The shared components (FileRecord only where files are shown) and the routes' named ones: no collection
  // may take their names.
  const reserved = [...Object.keys(SHARED_SCHEMAS), FILE_RECORD_NAME, VERSION_ACTOR_NAME, SCHEDULED_ACTION_NAME, PREVIEW_LINK_NAME, ...namedSchemaNames(routes)];
  const names = allocateComponentNames([...registry.values()], globals, reserved);
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addTitle('Content API')
    .addVersion('1.0.0')
    .addDescription(
      'Generated from the router configuration. Errors are RFC 9457 problem details (application/problem+json). ' +
        'List endpoints accept the where/depth/limit, include/perPage/cursor and filter/fields dialects at once.',
    )
    .addServer({ url: serverUrl || '/', description: 'Where the host mounted the API' });
  // Every component added so far, by name: the workflow's schemas derive from the record schemas.
  const added = new Map<string, JsonSchema>();
  const addSchemas = (schemas: Record<string, JsonSchema>) => {
    for (const [name, schema] of Object.entries(schemas)) {
      builder.addSchema(name, schema);
      added.set(name, schema);
    }
  };
  addSchemas(SHARED_SCHEMAS);

  const namesOf = (slug: string): ComponentNames | undefined => names.collections.get(slug);
  for (const descriptor of registry.values()) {
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the names were allocated for every descriptor of the registry
    const own = names.collections.get(descriptor.slug)!;
    addSchemas(collectionSchemas(descriptor, own, registry, namesOf, source.writeDenied));
    addSchemas(listSchemas(descriptor.slug, own));
  }
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the names were allocated for every global
  for (const descriptor of globals) addSchemas(collectionSchemas(descriptor, names.globals.get(descriptor.slug)!, registry, namesOf, source.writeDenied));
  // Named only when used, as an unused component is a lint warning: by a visible upload field, or a route's answer.
  const addFileRecord = () => addSchemas({ [FILE_RECORD_NAME]: fileRecordSchema() });
  if ([...registry.values(), ...globals].some((d) => Object.values(d.fields).some((f) => f.type === 'upload' && !f.hidden))) addFileRecord();

  // The router's own schemes with an auth collection, then the host's: together, every way to authenticate.
  const hasAuth = source.ownAuth ?? [...registry.values()].some((c) => c.isAuth);
  if (hasAuth) for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) builder.addSecurityScheme(name, { ...scheme });
  for (const [name, scheme] of Object.entries(source.hostAuth?.schemes ?? {})) builder.addSecurityScheme(name, { ...scheme } as SecuritySchemeObject);
  const authenticated: SecurityRequirementObject[] = [...(hasAuth ? AUTHENTICATED : []), ...(source.hostAuth?.security ?? [])];
  const problemHeaders: typeof PROBLEM_HEADERS = source.challenge
    ? { ...PROBLEM_HEADERS, 401: { 'WWW-Authenticate': { description: `The challenge: \`${source.challenge}\``, schema: { type: 'string' } } } }
    : PROBLEM_HEADERS;

  type WorkflowShape = Extract<BodyShape, { kind: 'draft' | 'draft-list' | 'version' | 'version-list' | 'version-diff' }>;
  /** A workflow answer's component, named on first use; undefined when the collection keeps no history (or no drafts). */
  const workflowSchema = (shape: WorkflowShape): JsonSchema | undefined => {
    const global = 'global' in shape && shape.global === true;
    const own = (global ? names.globals : names.collections).get(shape.slug);
    const workflow = own?.workflow;
    if (!own || !workflow) return undefined;
    const record = added.get(own.record);
    if (!record) return undefined;
    const drafts = workflow.drafts;
    switch (shape.kind) {
      case 'draft':
      case 'draft-list':
        if (!drafts) return undefined;
        addSchemas({ [drafts.draft]: draftSchema(record, shape.slug) });
        if (shape.kind === 'draft') return ref(drafts.draft);
        addSchemas(listSchemas(`working copies of ${shape.slug}`, drafts.draftList));
        return ref(drafts.draftList.list);
      case 'version-diff':
        addSchemas({ [workflow.versionDiff]: versionDiffSchema(shape.slug) });
        return ref(workflow.versionDiff);
      case 'version':
        // A drafts collection's versions may hold working copies, whose fields may be unset.
        addSchemas({ [VERSION_ACTOR_NAME]: versionActorSchema(), [workflow.version]: versionSchema(shape.slug, drafts ? draftSchema(record, shape.slug, false) : ref(own.record)) });
        return ref(workflow.version);
      case 'version-list':
        addSchemas({ [VERSION_ACTOR_NAME]: versionActorSchema(), [workflow.versionSummary]: versionSummarySchema(shape.slug) });
        addSchemas(listSchemas(`versions of a record of ${shape.slug}, newest first`, workflow.versionList));
        return ref(workflow.versionList.list);
    }
  };

  const shapeSchema = (shape: BodyShape): JsonSchema => {
    const own = 'slug' in shape ? names.collections.get(shape.slug) : undefined;
    const fallback = { type: 'object', description: `A ${shape.kind} of ${'slug' in shape ? shape.slug : 'an unknown collection'}` };
    switch (shape.kind) {
      case 'record':
        return own ? ref(own.record) : fallback;
      case 'record-input':
        if (!own) return fallback;
        if (shape.omit?.length) {
          // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- names exist only for the registry's collections
          const descriptor = registry.get(shape.slug)!;
          return inputSchema(descriptor, shape.mode, [...shape.omit, ...(source.writeDenied?.(descriptor, shape.mode) ?? [])]);
        }
        return ref(shape.mode === 'create' ? own.create : own.update);
      case 'list':
        return own ? ref(own.list) : fallback;
      case 'bulk':
        // An update answers by id alone the records the caller's read rule hides.
        return own ? (shape.op === 'update' ? bulkAnswerSchema({ anyOf: [ref(own.record), ID_ONLY] }, 'updated') : bulkAnswerSchema(ID_ONLY, 'deleted')) : fallback;
      case 'batch':
      case 'batch-input': {
        if (!own) return fallback;
        // Named only when a route uses one: a collection with a field called `data` has no batch form.
        if (shape.kind === 'batch') addSchemas({ [own.batch]: batchSchema(shape.slug, own.record) });
        // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- names exist only for the registry's collections
        else addSchemas({ [own.createBatch]: batchSchema(shape.slug, own.create, registry.get(shape.slug)!.maxBatchSize) });
        return ref(shape.kind === 'batch' ? own.batch : own.createBatch);
      }
      case 'global':
      case 'global-input': {
        const global = names.globals.get(shape.slug);
        if (!global) return fallback;
        return ref(shape.kind === 'global' ? global.record : global.update);
      }
      case 'draft':
      case 'draft-list':
      case 'version':
      case 'version-list':
      case 'version-diff':
        return workflowSchema(shape) ?? fallback;
      case 'schedule':
      case 'schedule-list':
        addSchemas({ [SCHEDULED_ACTION_NAME]: scheduledActionSchema() });
        return shape.kind === 'schedule' ? ref(SCHEDULED_ACTION_NAME) : scheduleListSchema(SCHEDULED_ACTION_NAME);
      case 'preview-link':
        addSchemas({ [PREVIEW_LINK_NAME]: previewLinkSchema() });
        return ref(PREVIEW_LINK_NAME);
      case 'file':
        addFileRecord();
        return ref(FILE_RECORD_NAME);
      case 'schema':
        return shape.schema;
      case 'named':
        addSchemas(shape.schemas);
        return ref(shape.name);
      case 'one-of':
        return { oneOf: shape.shapes.map(shapeSchema) };
      case 'object': {
        const properties = Object.fromEntries(Object.entries(shape.properties).map(([name, part]) => [name, shapeSchema(part)]));
        return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
      }
    }
  };

  // A declared error status is the one its problem carries; `default` covers any other.
  const problem = (description: string, status?: number): ResponseObject => ({
    description,
    ...(status !== undefined && problemHeaders[status] && { headers: problemHeaders[status] }),
    content: { [PROBLEM_TYPE]: { schema: status === undefined ? ref('Problem') : { allOf: [ref('Problem'), { properties: { status: { const: status } } }] } } },
  });

  const responsesOf = (route: RouteDef): ResponsesObject => {
    const responses: ResponsesObject = {};
    const declared = { ...route.responses };
    // The limiter runs before every route: its 429 joins whatever 429 the route answers itself.
    if (source.rateLimit) declared[429] = { description: 429 in declared ? `${declared[429].description}; or ${RATE_LIMITED}` : `The client is ${RATE_LIMITED}` };
    for (const [code, response] of Object.entries(declared)) {
      const status = Number(code);
      let answer: ResponseObject;
      if (status >= 400 && response.shape) {
        // An error in a body of its own (a JSON-RPC error), and a problem too when the router also answers the status.
        const own = { 'application/json': { schema: shapeSchema(response.shape) } };
        const base: ResponseObject = response.problem ? problem(response.description, status) : { description: response.description, ...(problemHeaders[status] && { headers: problemHeaders[status] }) };
        answer = { ...base, content: { ...own, ...base.content } };
      } else if (status >= 400) answer = problem(response.description, status);
      else if (response.contentType) answer = { description: response.description, content: { [response.contentType]: { schema: { type: 'string' } } } };
      else if (response.shape) answer = { description: response.description, content: { 'application/json': { schema: shapeSchema(response.shape) } } };
      else answer = { description: response.description };
      if (response.headers) answer.headers = { ...answer.headers, ...response.headers };
      responses[code] = answer;
    }
    // Whatever a route declares, the router may also answer 500 or 503 (database unreachable) as problems.
    responses.default = problem('Unexpected error (also 503 when the database is unreachable)');
    return responses;
  };

  // Without any scheme to name (no auth collection, none of the host's), operations say nothing of security.
  const securityOf = (route: RouteDef): SecurityRequirementObject[] | undefined => {
    if (!authenticated.length) return undefined;
    if (route.auth === 'none') return [];
    if (route.auth === 'required') return authenticated;
    return [{}, ...authenticated];
  };

  // Paths keyed the way the dispatcher keys them: routes that differ only in parameter names share one
  // path item, spelled as the first route spelled it (the dispatcher names the parameters the same way).
  const items = new Map<string, { template: string; params: string[]; item: PathItemObject }>();
  const tags = new Set<string>();
  for (const route of routes) {
    if (route.undocumented) continue;
    const split = splitPath(route.path);
    let entry = items.get(split.key);
    if (!entry) {
      entry = { template: split.template, params: split.params, item: {} };
      items.set(split.key, entry);
    }
    const pathParameters: ParameterObject[] = entry.params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    const parameters: ParameterObject[] = [
      ...pathParameters,
      ...queryParameters(route.query, source.query, route.collection ? registry.get(route.collection) : listedCollection(route, registry), registry),
      ...(route.headers ?? []).map(({ name, description, required, schema }): ParameterObject => ({ name, in: 'header', description, required: required ?? false, schema })),
    ];
    const operation: OperationObject = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description && { description: route.description }),
      tags: route.tags,
      ...(parameters.length > 0 && { parameters }),
      responses: responsesOf(route),
    };
    const security = securityOf(route);
    if (security) operation.security = security;
    if (route.body) {
      const mediaType = route.body.type === 'json' ? 'application/json' : 'multipart/form-data';
      operation.requestBody = { required: route.body.required, content: { [mediaType]: { schema: shapeSchema(route.body.shape) } } };
    }
    entry.item[route.method] = operation;
    for (const tag of route.tags) tags.add(tag);
  }
  for (const { template, item } of items.values()) builder.addPath(template, item);
  for (const tag of tags) builder.addTag({ name: tag });
  return builder.getSpec();
}
