// The preview-link routes of a collection (`/<slug>/:id/preview`) and of a global
// (`/globals/<slug>/preview`): make a link (POST) and revoke every link of the record (DELETE). The link
// itself is read by the draft route (`GET .../draft?preview=<token>`), which calls findDraftByPreview.
// Where drafts are off the same paths answer a 404 saying so, left out of the document (a client has
// nothing to call there), as the draft routes do.
import type { Request, Response } from 'express';
import { bodyFields } from '../http/body-fields';
import { endJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import type { RouteCaller, RouteDef, RouteResponse } from '../http/route-table';
import { draftsOffRoutes } from './draft-routes';
import { createPreview } from '../operations/preview/create-preview';
import { revokePreviews } from '../operations/preview/revoke-previews';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { recordNouns } from '../schema/type-names';
import { scopeAllows } from '../operations/access';

const BODY_KEYS = ['expiresIn'];

const PREVIEW_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    expiresIn: {
      oneOf: [{ type: 'string', examples: ['1h', '7d'] }, { type: 'integer', minimum: 1 }],
      description: 'How long the link works: a duration (`30m`, `1h`, `7d`) or a number of seconds. Default `1h`, at most `7d`.',
    },
  },
};
const REVOKED = { type: 'object', required: ['revoked'], properties: { revoked: { type: 'integer', description: 'How many links were revoked.' } } };

const ERRORS: Record<number, RouteResponse> = {
  401: { description: 'Invalid credentials, or none where the readDrafts rule needs some' },
  403: { description: 'Not allowed (the readDrafts rule)' },
  404: { description: 'No such record, or drafts are off' },
};

/** The POST body: nothing, or `{ expiresIn }`; anything else is a 400 before any rule is asked. */
function expiresInOf(req: Request): unknown {
  return bodyFields(req, BODY_KEYS).expiresIn;
}

/** Making or revoking a link stores something: an API key needs the write scope, whatever readDrafts allows. */
const storesWithKey = ({ user }: RouteCaller): Promise<boolean> => Promise.resolve(scopeAllows(user, 'update'));

/** The routes of one collection's (or global's) preview links. */
export function previewRoutes(runtime: Runtime, collection: CollectionRuntime): RouteDef[] {
  const { slug, isGlobal } = collection.descriptor;
  const path = isGlobal ? `/globals/${slug}/preview` : `/${slug}/:id/preview`;
  const operationId = isGlobal ? `globals.${slug}` : slug;
  if (!collection.drafts) return draftsOffRoutes(path, `${operationId}.preview`, collection.descriptor, ['post', 'delete']);
  const tags = isGlobal ? ['globals'] : [slug];
  const what = isGlobal ? `the ${slug} global` : recordNouns(slug).one;
  const args = async (req: Request) => ({ runtime, collection, req, user: await requestUser(runtime, req), ...(!isGlobal && { id: String(req.params.id) }) });
  return [
    {
      method: 'post',
      path,
      operationId: `${operationId}.createPreview`,
      rule: { op: 'readDrafts', slug, global: isGlobal },
      reach: storesWithKey,
      summary: `Create a preview link of ${what}'s draft`,
      description: 'Anyone holding the link reads the working copy, as an anonymous reader would see it published, until it expires or is revoked. Needs the readDrafts rule.',
      tags,
      collection: isGlobal ? undefined : slug,
      auth: 'optional',
      body: { type: 'json', shape: { kind: 'schema', schema: PREVIEW_BODY }, required: false },
      responses: { 201: { description: 'The link', shape: { kind: 'preview-link' } }, 400: { description: 'Invalid body' }, ...ERRORS, 415: { description: 'Not JSON' } },
      async handler(req: Request, res: Response) {
        const expiresIn = expiresInOf(req);
        const link = await createPreview({ ...(await args(req)), expiresIn });
        // The token opens a draft: no cache and no Idempotency-Key replay may keep it.
        res.status(201).set('Cache-Control', 'no-store');
        endJson(res, { token: link.token, url: `${req.baseUrl}${link.path}`, expiresAt: link.expiresAt.toISOString() });
      },
    },
    {
      method: 'delete',
      path,
      operationId: `${operationId}.revokePreviews`,
      rule: { op: 'readDrafts', slug, global: isGlobal },
      reach: storesWithKey,
      summary: `Revoke every preview link of ${what}`,
      description: 'Needs the readDrafts rule.',
      tags,
      collection: isGlobal ? undefined : slug,
      auth: 'optional',
      responses: { 200: { description: 'How many links were revoked', shape: { kind: 'schema', schema: REVOKED } }, ...ERRORS },
      async handler(req: Request, res: Response) {
        endJson(res, await revokePreviews(await args(req)));
      },
    },
  ];
}

