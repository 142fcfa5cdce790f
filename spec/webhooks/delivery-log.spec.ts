// The delivery log: GET /webhooks/deliveries and POST /webhooks/deliveries/:id/retry for admins only (with an
// API key, the admin scope too), newest first, filtered and paged in the list envelopes; a retry sends a
// failed delivery again with the same webhook-id; bad input is a 400 naming the parameter, an unknown or
// expired delivery a 404; both routes are in the OpenAPI document; api.webhooks does the same for server code.
import request from 'supertest';
import { type AuthTestApp, PROBLEM, bearer, createAuthTestApp, registerAdmin, registerUser } from '../auth/auth-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { createResponseValidator, validateOpenApiDocument } from '../openapi/openapi-validators';
import { type Answer, type Receiver, ok, startReceiver } from './receivers';
import { until } from '../helpers/eventually';

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('the webhook delivery log', () => {
  let t: AuthTestApp;
  let good: Receiver;
  let picky: Receiver;
  let accepting = false;
  let adminToken: string;
  let userToken: string;
  const ids: string[] = [];

  /** Refuses until `accepting` is set. */
  const untilAccepting: Answer = (req, res, count) => (accepting ? ok(req, res, count) : res.writeHead(503).end('down for maintenance'));

  beforeAll(async () => {
    good = await startReceiver(ok);
    picky = await startReceiver(untilAccepting);
    t = await createAuthTestApp({
      extra: {
        webhooks: {
          endpoints: [
            { url: good.url, secret: good.secret, events: ['posts.create'] },
            { url: picky.url, secret: picky.secret, events: ['posts.create'], where: { title: { like: 'picky%' } } },
          ],
          retry: { delays: [] },
          retention: '1h',
        },
      },
    });
    adminToken = (await registerAdmin(t)).accessToken;
    userToken = (await registerUser(t)).accessToken;
    for (const title of ['first', 'second', 'picky third']) {
      ids.push((await t.api.local.create('posts', { title })).id);
    }
    // Four deliveries: three delivered to good, one failed at picky (no retries configured).
    await until(async () => {
      const { data } = await t.api.webhooks!.list({ limit: 100 });
      return data.filter((d) => d.status !== 'pending').length === 4;
    });
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([good?.close(), picky?.close()]);
  });

  const list = (query: Record<string, unknown> = {}, token = adminToken) => request(t.app).get('/api/webhooks/deliveries').query(query).set(...bearer(token));
  const apiKey = async (token: string, scopes: string[]) =>
    (await request(t.app).post('/api/users/api-keys').set(...bearer(token)).send({ name: 'log', scopes }).expect(201)).body.apiKey.key as string;

  describe('who may read it', () => {
    it('401 without credentials', async () => {
      const res = await request(t.app).get('/api/webhooks/deliveries');
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      await request(t.app).post(`/api/webhooks/deliveries/msg_x/retry`).expect(401);
    });

    it('403 for a user without role admin, even with an admin-scoped key', async () => {
      const res = await list({}, userToken);
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.detail).toBe('The webhook delivery log is for admins.');
      const key = await apiKey(userToken, ['admin']);
      await request(t.app).get('/api/webhooks/deliveries').set('X-API-Key', key).expect(403);
    });

    it("an admin's key needs the admin scope", async () => {
      const readOnly = await apiKey(adminToken, ['read']);
      const refused = await request(t.app).get('/api/webhooks/deliveries').set('X-API-Key', readOnly);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('insufficient_scope');
      const full = await apiKey(adminToken, ['admin']);
      await request(t.app).get('/api/webhooks/deliveries').set('X-API-Key', full).expect(200);
    });

    it("a host's own user with role admin may read it", async () => {
      await request(t.app).get('/api/webhooks/deliveries').set('X-Test-User', JSON.stringify({ id: 'host-1', role: 'admin' })).expect(200);
    });
  });

  describe('GET /webhooks/deliveries', () => {
    it('newest first, in the default envelope, each with its attempts', async () => {
      const res = await list().expect(200);
      expect(res.body.meta).toEqual({ total: 4, page: 1, perPage: 10, totalPages: 1 });
      const createdAt = res.body.data.map((d: { createdAt: string }) => d.createdAt);
      expect(createdAt).toEqual([...createdAt].sort().reverse());
      expect(res.body.data[0]).toMatchObject({ recordId: ids[2], collection: 'posts', type: 'posts.create' });
      const failed = res.body.data.find((d: { status: string }) => d.status === 'failed');
      expect(failed).toEqual({
        id: expect.stringMatching(/^msg_/),
        endpoint: picky.url,
        type: 'posts.create',
        recordId: ids[2],
        collection: 'posts',
        status: 'failed',
        attempts: [{ at: expect.any(String), status: 503, error: 'answered 503, not 2xx', durationMs: expect.any(Number), response: 'down for maintenance' }],
        createdAt: expect.any(String),
      });
    });

    it('filters by status and endpoint', async () => {
      const failed = await list({ status: 'failed' }).expect(200);
      expect(failed.body.data.map((d: { endpoint: string }) => d.endpoint)).toEqual([picky.url]);
      const atGood = await list({ endpoint: good.url, status: 'delivered' }).expect(200);
      expect(atGood.body.meta.total).toBe(3);
      expect((await list({ status: 'pending' }).expect(200)).body.data).toEqual([]);
    });

    it('pages: perPage in the data envelope, limit in the docs envelope', async () => {
      const second = await list({ perPage: 1, page: 2 }).expect(200);
      expect(second.body.meta).toEqual({ total: 4, page: 2, perPage: 1, totalPages: 4 });
      expect(second.body.data).toHaveLength(1);
      const docs = await list({ limit: 3, page: 2 }).expect(200);
      expect(docs.body).toEqual({ docs: [expect.any(Object)], totalDocs: 4, limit: 3, page: 2, totalPages: 2, hasNextPage: false, hasPrevPage: true });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a status that is none', { status: 'lost' }, 'status'],
      ['an unknown parameter', { where: '{}' }, 'where'],
      ['a cursor', { cursor: '' }, 'cursor'],
      ['a page of zero', { page: 0 }, 'page'],
      ['a page size over the maximum', { perPage: 101 }, 'perPage'],
    ])('400 for %s, naming the parameter', async (_name, query, parameter) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: parameter })]);
    });
  });

  describe('POST /webhooks/deliveries/:id/retry', () => {
    it('sends a failed delivery again with the same webhook-id; the log shows both attempts', async () => {
      const [failed] = (await list({ status: 'failed' }).expect(200)).body.data;
      accepting = true;
      const res = await request(t.app).post(`/api/webhooks/deliveries/${failed.id}/retry`).set(...bearer(adminToken));
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ id: failed.id, status: 'pending', nextAttemptAt: expect.any(String) });
      const { body: document } = await request(t.app).get('/api/docs/openapi.json').expect(200);
      expect(createResponseValidator(document).errorsOf(`/webhooks/deliveries/${failed.id}/retry`, 'post', 202, 'application/json', res.body)).toEqual([]);
      await until(() => picky.byId(failed.id).length === 2);
      expect(picky.byId(failed.id).map((r) => r.verified.ok)).toEqual([true, true]);
      const delivered = await until(async () => (await t.api.webhooks!.list({ status: 'delivered', endpoint: picky.url })).data[0]);
      expect(delivered.attempts.map((a) => a.status)).toEqual([503, 200]);
    });

    it('404 for an unknown delivery, as problem+json', async () => {
      const res = await request(t.app).post('/api/webhooks/deliveries/msg_000000000000000000000000/retry').set(...bearer(adminToken));
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      await expect(t.api.webhooks!.retry('nope')).rejects.toMatchObject({ status: 404 });
    });

    it('an expired delivery is gone, even before the TTL monitor removes it', async () => {
      const [oldest] = (await list({ endpoint: good.url }).expect(200)).body.data.slice(-1);
      await t.connection.collection('content-router.webhook-deliveries').updateOne({ _id: oldest.id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
      const { body } = await list({ endpoint: good.url }).expect(200);
      expect(body.data.map((d: { id: string }) => d.id)).not.toContain(oldest.id);
      await request(t.app).post(`/api/webhooks/deliveries/${oldest.id}/retry`).set(...bearer(adminToken)).expect(404);
    });
  });

  it('api.webhooks checks its query as the route does', async () => {
    await expect(t.api.webhooks!.list({ status: 'lost' as never })).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ field: 'status' })] });
    expect((await t.api.webhooks!.list({ limit: 1 })).meta).toMatchObject({ perPage: 1, page: 1 });
  });

  it('both routes are in the OpenAPI document with their errors, and their answers fit it', async () => {
    const { body } = await request(t.app).get('/api/docs/openapi.json').expect(200);
    expect(validateOpenApiDocument(body)).toEqual({ valid: true });
    const validator = createResponseValidator(body);
    for (const query of [{}, { limit: 2 }]) {
      const res = await list(query).expect(200);
      expect(validator.errorsOf('/webhooks/deliveries', 'get', 200, 'application/json', res.body)).toEqual([]);
    }

    const listOp = body.paths['/webhooks/deliveries'].get;
    expect(Object.keys(listOp.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    expect(listOp.parameters.map((p: { name: string }) => p.name)).toEqual(['status', 'endpoint', 'page', 'limit', 'perPage']);
    const retryOp = body.paths['/webhooks/deliveries/{id}/retry'].post;
    expect(Object.keys(retryOp.responses)).toEqual(expect.arrayContaining(['202', '401', '403', '404']));
    expect(retryOp.security).toBeDefined();
  });
});
