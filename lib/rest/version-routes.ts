// The history routes of a collection (`/<slug>/:id/versions...`) and of a global
// (`/globals/<slug>/versions...`): list, one version, diff, restore. Thin: parse, call the operation, answer.
// On a collection or global without `versions` the same paths answer a 404 saying versions are off (those
// routes stay out of the OpenAPI document: they serve nothing).
import type { Request } from 'express';
import type { AccessOperation } from '../operations/access';
import { sendReadJson } from '../http/json-answer';
import { toListEnvelope } from '../http/list-envelope';
import { parseQueryString, querySearch, readQuery } from '../http/read-query';
import { requestUser } from '../http/request-user';
import { refusalsHeard } from '../http/refused-write-route';
import type { QueryParameter, RouteDef, RouteHandler } from '../http/route-table';
import { diffVersion, findVersion, historyModel, listVersions, restoreVersion } from '../operations/versions';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { parseAgainst, parseVersionListQuery } from '../query/parse-version-query';
import { readBooleanParam } from '../query/read-param';
import { ETAG_HEADER, ifMatchHeader, preconditionResponses } from './precondition-docs';
import { ifMatchOf, sendWritten } from './preconditions';

const ERRORS = { 400: { description: 'Invalid query' }, 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed (readVersions)' }, 404: { description: 'No such record or version' } };

const LIST_QUERY: QueryParameter[] = [
  { name: 'page', description: 'Page number (from 1).', schema: { type: 'integer', minimum: 1 } },
  { name: 'perPage', description: 'Versions per page.', schema: { type: 'integer', minimum: 1 } },
  { name: 'limit', description: 'Versions per page (the docs envelope).', schema: { type: 'integer', minimum: 1 } },
  { name: 'cursor', description: 'A nextCursor or prevCursor (empty: the first page).', schema: { type: 'string' } },
  { name: 'count', description: 'false: no totals.', schema: { type: 'boolean' } },
];
const AGAINST: QueryParameter = { name: 'against', description: 'A version number, current (the record as it stands) or draft (its working copy). Default: the version before.', schema: { type: 'string' } };
const PUBLISH: QueryParameter = { name: 'publish', description: 'Drafts collections: restore into the published record instead of the working copy.', schema: { type: 'boolean' } };

/** The history routes of one collection or global: served with `versions`, else a 404 saying versions are off. */
export function versionRoutes(runtime: Runtime, owner: CollectionRuntime): RouteDef[] {
  const { slug, isGlobal } = owner.descriptor;
  const base = isGlobal ? `/globals/${slug}/versions` : `/${slug}/:id/versions`;
  const name = isGlobal ? `globals.${slug}` : slug;
  const tags = [isGlobal ? 'globals' : slug];
  const what = isGlobal ? `the ${slug} global` : `a record of ${slug}`;
  const on = owner.versions !== undefined;
  // A drafts collection's history holds its working copies: reading it needs readDrafts too.
  const reads: AccessOperation[] = owner.drafts ? ['readVersions', 'readDrafts'] : ['readVersions'];
  const args = async (req: Request) => ({ runtime, collection: owner, req, user: await requestUser(runtime, req), ...(isGlobal ? {} : { id: String(req.params.id) }) });
  // Versions off: every history path answers that, and the document describes none of them.
  const serve = (handler: RouteHandler): RouteHandler =>
    on
      ? handler
      : () => {
          // Throws the 404 saying so; the chain runner answers what a handler throws.
          historyModel(owner);
        };
  const routes: RouteDef[] = [
    {
      method: 'get',
      path: base,
      operationId: `${name}.versions.list`,
      rule: { op: reads, slug, global: isGlobal },
      summary: `List the versions of ${what}`,
      description: 'Newest first. Needs readVersions; changedFields names only fields you may read.',
      tags,
      auth: 'optional',
      query: LIST_QUERY,
      responses: { 200: { description: 'A page of versions', shape: { kind: 'version-list', slug, ...(isGlobal && { global: true }) } }, ...ERRORS },
      handler: serve(async (req, res) => {
        const query = parseVersionListQuery(parseQueryString(querySearch(req)), owner.descriptor, runtime.config.query);
        sendReadJson(res, toListEnvelope(await listVersions({ ...(await args(req)), query }), query.envelope));
      }),
    },
    {
      method: 'get',
      path: `${base}/:version`,
      operationId: `${name}.versions.get`,
      rule: { op: reads, slug, global: isGlobal },
      summary: `Get a version of ${what}`,
      description: 'With the record as it was (doc), as you read records. A version that is not an integer >= 1 names none: 404.',
      tags,
      auth: 'optional',
      responses: { 200: { description: 'The version', shape: { kind: 'version', slug, ...(isGlobal && { global: true }) } }, ...ERRORS },
      handler: serve(async (req, res) => {
        sendReadJson(res, await findVersion({ ...(await args(req)), version: String(req.params.version) }));
      }),
    },
    {
      method: 'get',
      path: `${base}/:version/diff`,
      operationId: `${name}.versions.diff`,
      rule: { op: reads, slug, global: isGlobal },
      summary: `Compare a version of ${what}`,
      description: 'The fields you may read whose values differ between `against` (from) and the version (to).',
      tags,
      auth: 'optional',
      query: [AGAINST],
      responses: { 200: { description: 'The changes', shape: { kind: 'version-diff', slug, ...(isGlobal && { global: true }) } }, ...ERRORS },
      handler: serve(async (req, res) => {
        const against = parseAgainst(readQuery(req));
        sendReadJson(res, await diffVersion({ ...(await args(req)), version: String(req.params.version), ...(against && { against }) }));
      }),
    },
    {
      method: 'post',
      path: `${base}/:version/restore`,
      operationId: `${name}.versions.restore`,
      rule: { op: [...reads, 'update'], slug, global: isGlobal },
      summary: `Restore a version of ${what}`,
      description:
        "Writes the version's values back as an update (field access, hooks, validation, unique values and If-Match apply), recorded as a new version. " +
        'A record deleted for good is created again with its id. Needs readVersions and update. If-Match is never required: the state it replaces stays in the history.',
      tags,
      auth: 'optional',
      headers: [ifMatchHeader(false)],
      query: owner.drafts ? [PUBLISH] : [],
      responses: {
        200: { description: isGlobal ? 'The global' : 'The record', shape: isGlobal ? { kind: 'global', slug } : { kind: 'record', slug }, headers: ETAG_HEADER },
        ...ERRORS,
        409: { description: 'Unique value taken' },
        ...preconditionResponses(false),
      },
      handler: serve(
        refusalsHeard({ runtime, collection: owner, action: 'restore' }, async (req, res) => {
          const ifMatch = ifMatchOf(req, { requireIfMatch: false });
          const publish = readBooleanParam(readQuery(req), 'publish', false);
          sendWritten(res, await restoreVersion({ ...(await args(req)), version: String(req.params.version), ifMatch, publish }));
        }),
      ),
    },
  ];
  return on ? routes : routes.map((route) => ({ ...route, undocumented: true }));
}
