// Mounting: any path, beside the host's own routes (unmatched paths fall through), and under Express 4.
import express4 from 'express4';
import request from 'supertest';
import { contentRouter } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';

const user = asUser({ id: '000000000000000000000001' });
const collections = [{ slug: 'items', fields: { name: { type: 'text' as const, required: true } } }];

describe('mounted at any path beside host routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ collections }, { prefix: '/cms/v1' });
    t.app.get('/cms/v1/health', (_req, res) => {
      res.json({ host: 'ok' });
    });
  });
  afterAll(() => t.close());

  it('serves under the mount path and builds Location from it', async () => {
    const res = await request(t.app).post('/cms/v1/items').set(...user).send({ name: 'a' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/cms/v1/items/${res.body.id}`);
  });

  it('leaves paths it does not own to the host', async () => {
    const res = await request(t.app).get('/cms/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ host: 'ok' });
  });
});

describe('under Express 4', () => {
  it('runs a CRUD round trip and answers errors as problem+json', async () => {
    const connection = await openTestConnection();
    const api = contentRouter({ db: { connection }, collections, logger: { error: () => undefined, warn: () => undefined } });
    await api.ready;
    const app = express4();
    app.use((req, _res, next) => {
      (req as unknown as { user: unknown }).user = { id: '000000000000000000000001' };
      next();
    });
    app.use('/api', api as unknown as express4.RequestHandler);
    try {
      const created = await request(app).post('/api/items').send({ name: 'four' });
      expect(created.status).toBe(201);
      const id = created.body.id;
      const list = await request(app).get('/api/items?where[name][eq]=four&sort=-createdAt');
      expect(list.status).toBe(200);
      expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([id]);
      const patched = await request(app).patch(`/api/items/${id}`).send({ name: 'IV' });
      expect(patched.body).toMatchObject({ id, name: 'IV' });
      const bad = await request(app).post('/api/items').send({});
      expect(bad.status).toBe(400);
      expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
      expect((await request(app).delete(`/api/items/${id}`)).body).toEqual({ deleted: true });
      expect((await request(app).get(`/api/items/${id}`)).status).toBe(404);
    } finally {
      await api.close();
      await closeTestConnection(connection);
    }
  });
});
