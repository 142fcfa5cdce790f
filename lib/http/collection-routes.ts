// Thin REST handlers for one collection: parse the request, call the shared operation, shape the answer.
import { type Request, type Response, Router } from 'express';
import { create, createMany, deleteRecord, find, findById, restoreRecord, update } from '../operations';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { parseListQuery, parseRecordQuery } from '../query';
import { rejectQuery } from '../query/reject';
import { createJsonBody } from './json-body';
import { toListEnvelope } from './list-envelope';
import { readQuery } from './read-query';
import { requestUser } from './request-user';

/** `{ data: [...] }` is a batch, unless the collection has a field of its own called `data`. */
function isBatch(collection: CollectionRuntime, body: unknown): body is { data: unknown[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return keys.length === 1 && keys[0] === 'data' && Array.isArray((body as { data: unknown }).data) && !('data' in collection.descriptor.fields);
}

function readBoolean(value: unknown, name: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return rejectQuery(name, 'must be true or false', 'invalid_boolean');
}

/** Mounts list/get/create/update/delete (+ restore on soft-delete collections) at the router root. */
export function createCollectionRoutes(runtime: Runtime, collection: CollectionRuntime): Router {
  const router = Router();
  const { registry, query: queryOptions, bodyLimit } = runtime.config;
  const descriptor = collection.descriptor;
  const base = (req: Request) => ({ runtime, collection, req });

  router.use(createJsonBody(bodyLimit));

  router.get('/', async (req: Request, res: Response) => {
    const query = parseListQuery(readQuery(req), descriptor, registry, queryOptions);
    const result = await find({ ...base(req), query, user: await requestUser(runtime, req) });
    res.json(toListEnvelope(result, query.envelope));
  });

  router.get('/:id', async (req: Request, res: Response) => {
    const query = parseRecordQuery(readQuery(req), descriptor, registry, queryOptions);
    const record = await findById({ ...base(req), ...query, id: String(req.params.id), user: await requestUser(runtime, req) });
    res.json(record);
  });

  router.post('/', async (req: Request, res: Response) => {
    const user = await requestUser(runtime, req);
    if (isBatch(collection, req.body)) {
      const records = await createMany({ ...base(req), items: req.body.data, user });
      res.status(201).json({ data: records });
      return;
    }
    const record = await create({ ...base(req), data: req.body, user });
    res.status(201).location(`${req.baseUrl}/${record.id}`).json(record);
  });

  router.patch('/:id', async (req: Request, res: Response) => {
    const record = await update({ ...base(req), id: String(req.params.id), data: req.body, user: await requestUser(runtime, req) });
    res.json(record);
  });

  router.delete('/:id', async (req: Request, res: Response) => {
    const permanent = readBoolean(readQuery(req).permanent, 'permanent');
    const result = await deleteRecord({ ...base(req), id: String(req.params.id), user: await requestUser(runtime, req), permanent });
    res.json(result);
  });

  if (descriptor.softDelete) {
    router.post('/:id/restore', async (req: Request, res: Response) => {
      const record = await restoreRecord({ ...base(req), id: String(req.params.id), user: await requestUser(runtime, req) });
      res.json(record);
    });
  }
  return router;
}
