// The route table as mounted: 405 with Allow for a method the router does not serve on its own path,
// 404 problem+json for unknown sub-paths it owns, and everything else left to the host's next handler.
import express, { type Request, type Response } from 'express';
import request from 'supertest';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

const PROBLEM = /application\/problem\+json/;

describe('routing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        { slug: 'posts', fields: { title: { type: 'text' } }, access: { read: () => true, create: () => true, update: () => true, delete: () => true } },
        { slug: 'notes', fields: { body: { type: 'text' } }, softDelete: true, access: { read: () => true, create: () => true } },
      ],
      globals: [{ slug: 'site', fields: { title: { type: 'text' } }, access: { read: () => true } }],
    });
    // The host's own router at the same prefix, after the content router.
    const legacy = express.Router();
    legacy.get('/legacy', (_req: Request, res: Response) => {
      res.json({ legacy: true });
    });
    legacy.get('/', (_req: Request, res: Response) => {
      res.json({ root: 'host' });
    });
    t.app.use('/api', legacy);
  });
  afterAll(() => t.close());

  it.each([
    ['PUT', '/api/posts/000000000000000000000001', 'DELETE, GET, HEAD, PATCH'],
    ['PUT', '/api/posts', 'DELETE, GET, HEAD, PATCH, POST'],
    ['PUT', '/api/globals/site', 'GET, HEAD, PATCH, POST'],
    ['DELETE', '/api/globals/site', 'GET, HEAD, PATCH, POST'],
    ['GET', '/api/notes/000000000000000000000001/restore', 'POST'],
  ])('%s %s is a 405 with Allow: %s', async (method, path, allow) => {
    const res = await request(t.app)[method.toLowerCase() as 'put'](path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it.each([
    ['GET', '/api/globals'],
    ['GET', '/api/globals/nope'],
    ['PATCH', '/api/globals/nope'],
    ['GET', '/api/posts/000000000000000000000001/comments'],
    ['POST', '/api/posts/000000000000000000000001/restore'],
    ['GET', '/api/notes/a/b/c'],
  ])('%s %s (owned by the router, names nothing) is a 404 problem', async (method, path) => {
    const res = await request(t.app)[method.toLowerCase() as 'get'](path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('passes paths that name nothing of the router to the host, at the same prefix', async () => {
    const legacy = await request(t.app).get('/api/legacy');
    expect(legacy.status).toBe(200);
    expect(legacy.body).toEqual({ legacy: true });
    const root = await request(t.app).get('/api/');
    expect(root.status).toBe(200);
    expect(root.body).toEqual({ root: 'host' });
    const unknown = await request(t.app).get('/api/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).not.toMatch(PROBLEM);
    expect(t.hostErrors).toEqual([]);
  });

  it('answers OPTIONS on its own paths with 204 and Allow', async () => {
    const res = await request(t.app).options('/api/posts');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH, POST');
  });

  it('serves HEAD from the GET route, without a body', async () => {
    const res = await request(t.app).head('/api/posts');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.text).toBeUndefined();
  });

  it('keeps a trailing slash working like Express does', async () => {
    const res = await request(t.app).get('/api/posts/');
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('data');
  });

  it('still gives created records a Location under the mount path', async () => {
    const res = await request(t.app).post('/api/posts').send({ title: 'hello' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/posts/${res.body.id}`);
  });

  it('does not parse a body on routes that take none', async () => {
    // A GET with a broken JSON body is not a 400: the list route has no body to parse.
    const res = await request(t.app).get('/api/posts').set('Content-Type', 'application/json').send('{broken');
    expect(res.status).toBe(200);
  });
});
