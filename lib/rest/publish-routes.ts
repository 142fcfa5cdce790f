// The publish and unpublish routes of a collection (`/<slug>/:id/publish|unpublish`) and of a global
// (`/globals/<slug>/publish|unpublish`), on collections and globals with drafts only: elsewhere the paths
// stay free (a host's own `POST /<slug>/:id/publish` endpoint keeps working) and answer the router's 404.
import type { Request } from 'express';
import type { RouteDef } from '../http/route-table';
import { refusalsHeard } from '../http/refused-write-route';
import { bodyFields } from '../http/body-fields';
import { requestUser } from '../http/request-user';
import { publish } from '../operations/drafts/publish';
import { unpublish } from '../operations/drafts/unpublish';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { recordNouns } from '../schema/type-names';
import { ETAG_HEADER, ifMatchHeader, preconditionResponses } from './precondition-docs';
import { ifMatchOf, sendWritten } from './preconditions';
import { sendDraftWritten } from './draft-routes';
import type { DraftStatus } from '../operations/drafts/working-copy';

const ERRORS = { 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed (the publish rule)' } };

/** An action without values: a JSON body, if any, is an empty object (a value in it is a 400, never ignored). */
const NO_BODY = { type: 'json' as const, shape: { kind: 'schema' as const, schema: { type: 'object', additionalProperties: false, maxProperties: 0 } }, required: false };

/** Publish and unpublish of one collection's records, or of one global (`global`). */
export function publishRoutes(runtime: Runtime, collection: CollectionRuntime): RouteDef[] {
  const { descriptor } = collection;
  const { slug, isGlobal } = descriptor;
  const at = isGlobal ? `/globals/${slug}` : `/${slug}/:id`;
  const idOf = (req: Request) => (isGlobal ? slug : String(req.params.id));
  const noun = isGlobal ? `the ${slug} global` : recordNouns(slug).one;
  const required = descriptor.requireIfMatch;
  if (!collection.drafts) return [];
  const run = async (req: Request, action: typeof publish) => {
    // A body of values would be ignored: publishing takes the working copy as it is (save it first).
    bodyFields(req, []);
    const ifMatch = ifMatchOf(req, descriptor);
    return action({ runtime, collection, req, user: await requestUser(runtime, req), id: idOf(req), ifMatch });
  };
  const shape = isGlobal ? { kind: 'global' as const, slug } : { kind: 'record' as const, slug };
  return [
    {
      method: 'post',
      path: `${at}/publish`,
      operationId: isGlobal ? `globals.${slug}.publish` : `${slug}.publish`,
      rule: { op: 'publish', slug, global: isGlobal },
      summary: `Publish ${noun}'s working copy`,
      description:
        'The working copy becomes the published record: the `publish` rule (and `create` on a first publish), full validation (400, nothing written), unique values (409), hooks as for a create or update. If-Match takes the ETag of the working copy. An unchanged copy is a 200 that writes nothing.',
      tags: [isGlobal ? 'globals' : slug],
      ...(isGlobal ? {} : { collection: slug }),
      auth: 'optional',
      headers: [ifMatchHeader(required)],
      body: NO_BODY,
      responses: {
        200: { description: 'The published record', shape, headers: ETAG_HEADER },
        400: { description: 'The working copy is not valid as a published record' },
        ...ERRORS,
        404: { description: 'No such record' },
        409: { description: 'Unique value taken' },
        ...preconditionResponses(required),
      },
      handler: refusalsHeard({ runtime, collection, action: 'publish' }, async (req, res) => {
        sendWritten(res, await run(req, publish));
      }),
    },
    {
      method: 'post',
      path: `${at}/unpublish`,
      operationId: isGlobal ? `globals.${slug}.unpublish` : `${slug}.unpublish`,
      rule: { op: 'publish', slug, global: isGlobal },
      summary: `Unpublish ${noun}`,
      description: 'Removes the published record (a delete for subscribers and webhooks) and keeps the working copy, answered with `_status: draft`. Needs the `publish` rule.',
      tags: [isGlobal ? 'globals' : slug],
      ...(isGlobal ? {} : { collection: slug }),
      auth: 'optional',
      headers: [ifMatchHeader(required)],
      body: NO_BODY,
      responses: {
        200: { description: 'The working copy', shape: { kind: 'draft', slug, ...(isGlobal && { global: true }) } },
        ...ERRORS,
        404: { description: 'Not published' },
        409: { description: 'The published record changed meanwhile' },
        ...preconditionResponses(required),
      },
      handler: refusalsHeard({ runtime, collection, action: 'unpublish' }, async (req, res) => {
        // The working copy, answered as a draft write answers it (its ETag, never cached).
        const { _status, ...record } = await run(req, unpublish);
        sendDraftWritten(res, { record, status: _status as DraftStatus });
      }),
    },
  ];
}
