// Thin REST handlers for globals: GET reads, POST and PATCH both upsert a partial update.
import { type Request, type Response, Router } from 'express';
import { NotFoundError } from '../errors';
import { findGlobal, updateGlobal } from '../operations';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { createJsonBody } from './json-body';
import { requestUser } from './request-user';

/** Mounts `/:slug` for every configured global (to be mounted under `/globals`). */
export function createGlobalRoutes(runtime: Runtime): Router {
  const router = Router();
  router.use(createJsonBody(runtime.config.bodyLimit));

  const globalOf = (req: Request): CollectionRuntime => {
    const global = runtime.globals.get(String(req.params.slug));
    if (!global) throw new NotFoundError(`No global "${String(req.params.slug)}".`);
    return global;
  };

  router.get('/:slug', async (req: Request, res: Response) => {
    const global = globalOf(req);
    res.json(await findGlobal({ runtime, global, req, user: await requestUser(runtime, req) }));
  });

  const write = async (req: Request, res: Response) => {
    const global = globalOf(req);
    res.json(await updateGlobal({ runtime, global, req, data: req.body, user: await requestUser(runtime, req) }));
  };
  router.post('/:slug', write);
  router.patch('/:slug', write);
  return router;
}
