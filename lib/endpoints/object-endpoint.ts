// Object endpoints: `{ path, method, handler, schema?, detail?, scope? }` as one route-table entry. The body
// is read (JSON, or multipart when the schema has files) and validated before the handler; its return is the answer.
import type { RequestHandler } from 'express';
import { LateAnswerError, wasAnsweredEarly } from '../http/error-handler';
import { sendJson } from '../http/json-answer';
import { hasAnswered } from '../http/send-phase';
import type { EndpointObject } from '../config/types';
import { readQuery } from '../http/read-query';
import type { RouteDef, RouteResponse } from '../http/route-table';
import type { LocalApi } from '../local/local-api';
import type { Runtime } from '../operations/runtime';
import { noteWrite } from '../operations/request-state';
import { bodyJsonSchema, hasFileProperty } from './body-schema';
import { callerResponses, endpointCaller, endpointScope, hideHostUser, scopedError } from './endpoint-caller';
import { pathToOperationPart } from './endpoint-path';
import { createEndpointFormReader } from './multipart-body';
import { setRequestContext } from './request-context';
import { validateEndpointBody } from './validate-body';

const BODY_METHODS = new Set(['post', 'put', 'patch']);
/** Methods a retry may repeat with an Idempotency-Key: the ones that are not idempotent by themselves. */
export const RETRIED_METHODS = new Set(['post', 'patch']);

/** The route of one object endpoint, and the multipart reader it needs (run before its handler). */
export function objectEndpointRoute(runtime: Runtime, endpoint: EndpointObject, index: number, local: LocalApi): { route: RouteDef; reader?: RequestHandler } {
  const { path, method, schema, detail } = endpoint;
  const bodySchema = schema?.body;
  const multipart = bodySchema !== undefined && hasFileProperty(bodySchema);
  const takesBody = BODY_METHODS.has(method);
  const scope = endpointScope(method, endpoint.scope);
  // A declared scope is stated in the document; the default (read for GET, write otherwise) is every route's.
  const scopeNote = endpoint.scope === undefined ? undefined : `API keys need the \`${endpoint.scope}\` scope; a key without it acts as an anonymous caller.`;
  const description = [detail?.description, scopeNote].filter((text) => text !== undefined).join('\n\n');

  const responses: Record<number, RouteResponse> = {
    200: { description: 'The endpoint\'s answer', shape: { kind: 'schema', schema: schema?.response ?? {} } },
    204: { description: 'The endpoint answered nothing' },
    ...callerResponses(scope),
  };
  if (takesBody) {
    responses[400] = { description: bodySchema ? 'The body does not match the schema' : 'The body is not valid JSON' };
    responses[413] = { description: multipart ? 'A file or a field over its limit, or more fields or parts than the form takes' : 'Body too large' };
    responses[415] = { description: multipart ? 'Not multipart/form-data' : 'Not JSON' };
  }

  const route: RouteDef = {
    method,
    path,
    operationId: `endpoints.${method}.${pathToOperationPart(path)}`,
    summary: detail?.summary ?? `${method.toUpperCase()} ${path}`,
    ...(description === '' ? {} : { description }),
    tags: detail?.tags ?? ['endpoints'],
    auth: 'optional',
    // Without a schema a JSON body is still read (any JSON), as the handler's `body`.
    ...(takesBody
      ? {
          body: {
            type: multipart ? ('multipart' as const) : ('json' as const),
            shape: { kind: 'schema' as const, schema: bodySchema ? bodyJsonSchema(bodySchema, schema.name) : {} },
            required: (bodySchema?.required?.length ?? 0) > 0,
          },
        }
      : {}),
    responses,
    ...(RETRIED_METHODS.has(method) ? { config: { idempotent: true } } : {}),
    source: `endpoints[${index}]`,
    async handler(req, res) {
      const caller = await endpointCaller(runtime, req, scope);
      const { user } = caller;
      setRequestContext(req, local, user);
      const restore = hideHostUser(req, caller);
      let result: unknown;
      try {
        const raw = req.body as unknown;
        const body = bodySchema ? validateEndpointBody(bodySchema, raw, multipart) : raw;
        // What the router cannot see the handler do counts as a write, so an Idempotency-Key keeps its answer:
        // side effects (assumed unless declared absent), or the connection taken (its writes bypass the
        // router's operations). Assuming them keeps a retried payment or mail from acting twice.
        if (endpoint.sideEffects !== false) noteWrite({ req });
        result = await endpoint.handler({
          get db() {
            noteWrite({ req });
            return runtime.connection;
          },
          query: readQuery(req),
          params: { ...req.params } as Record<string, string>,
          body,
          user,
          req,
          res,
        });
      } catch (error) {
        throw scopedError(caller, error);
      } finally {
        restore();
      }
      if (hasAnswered(req, res)) {
        // Answered already: by the handler itself (fine, even while its answer is held back to be kept for
        // an Idempotency-Key), or by the request deadline (then this is late).
        if (wasAnsweredEarly(req)) throw new LateAnswerError();
        return;
      }
      if (result === undefined) {
        if (res.statusCode === 200) res.status(204);
        res.end();
        return;
      }
      sendJson(req, res, result);
    },
  };
  return { route, reader: multipart ? createEndpointFormReader(bodySchema) : undefined };
}
