// The REST routes of one global as route-table entries: GET reads, POST and PATCH both upsert a
// partial update (a global always exists, with its defaults, before the first write).
import type { RouteDef } from '../http/route-table';
import { findGlobal, updateGlobal } from '../operations/index';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { ETAG_HEADER, IF_NONE_MATCH_HEADER, NOT_MODIFIED, ifMatchHeader, preconditionResponses } from './precondition-docs';
import { ifMatchOf, sendWritten } from './preconditions';
import { sendReadJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import { refusalsHeard } from '../http/refused-write-route';

const ERRORS = { 400: { description: 'Invalid body' }, 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed' } };

/** The routes of one global, under `/globals/<slug>`. */
export function globalRoutes(runtime: Runtime, global: CollectionRuntime): RouteDef[] {
  const slug = global.descriptor.slug;
  const path = `/globals/${slug}`;
  const tags = [`globals`];
  const write = (method: 'post' | 'patch'): RouteDef => ({
    method,
    path,
    operationId: `globals.${slug}.${method === 'post' ? 'save' : 'update'}`,
    // A drafts global's published document is written under the publish rule too.
    rule: { op: global.drafts ? ['update', 'publish'] : 'update', slug, global: true },
    summary: `Update the ${slug} global`,
    tags,
    auth: 'optional',
    headers: [ifMatchHeader(global.descriptor.requireIfMatch)],
    body: { type: 'json', shape: { kind: 'global-input', slug }, required: true },
    responses: {
      200: { description: 'The global', shape: { kind: 'global', slug }, headers: ETAG_HEADER },
      ...ERRORS,
      404: { description: 'Not visible to the caller' },
      413: { description: 'Body too large' },
      415: { description: 'Not JSON' },
      ...preconditionResponses(global.descriptor.requireIfMatch),
    },
    handler: refusalsHeard({ runtime, collection: global, action: 'update' }, async (req, res) => {
      const ifMatch = ifMatchOf(req, global.descriptor);
      sendWritten(res, await updateGlobal({ runtime, global, req, data: req.body, ifMatch, user: await requestUser(runtime, req) }));
    }),
  });
  return [
    {
      method: 'get',
      path,
      operationId: `globals.${slug}.get`,
      rule: { op: 'read', slug, global: true },
      summary: `Get the ${slug} global`,
      tags,
      auth: 'optional',
      headers: [IF_NONE_MATCH_HEADER],
      responses: { 200: { description: 'The global', shape: { kind: 'global', slug }, headers: ETAG_HEADER }, ...NOT_MODIFIED, ...ERRORS, 404: { description: 'Not visible to the caller' } },
      async handler(req, res) {
        sendReadJson(res, await findGlobal({ runtime, global, req, user: await requestUser(runtime, req) }));
      },
    },
    write('post'),
    write('patch'),
  ];
}
