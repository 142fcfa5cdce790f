// The OpenAPI document of bulk writes: the answers' meta names the counts each
// operation really sends (an update never answers `deleted`, a delete never `updated`), so a generated
// client's types say what the answer holds.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = asUser({ id: 'a1', role: 'admin' });

describe('the OpenAPI document of bulk writes', () => {
  let t: TestApp;
  let paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: { properties: { meta: { properties: object; required: string[] } } } }> }> }>>;

  beforeAll(async () => {
    t = await createTestApp({ collections: [{ slug: 'notes', softDelete: true, fields: { title: { type: 'text' } }, access: { read: () => true } }] });
    paths = (await request(t.app).get('/api/docs/openapi.json').expect(200)).body.paths;
  });
  afterAll(() => t.close());

  const metaOf = (method: 'patch' | 'delete') => paths['/notes'][method].responses['200'].content['application/json'].schema.properties.meta;

  it('PATCH /<slug>?where= answers matched, updated and failed', async () => {
    expect(Object.keys(metaOf('patch').properties).sort()).toEqual(['failed', 'matched', 'updated']);
    const res = await request(t.app).patch('/api/notes?where={}').set(...admin).send({ title: 'x' }).expect(200);
    expect(Object.keys(res.body.meta).sort()).toEqual(['failed', 'matched', 'updated']);
  });

  it('DELETE /<slug>?where= answers matched, deleted and failed', async () => {
    expect(Object.keys(metaOf('delete').properties).sort()).toEqual(['deleted', 'failed', 'matched']);
    const res = await request(t.app).delete('/api/notes?where={}').set(...admin).expect(200);
    expect(Object.keys(res.body.meta).sort()).toEqual(['deleted', 'failed', 'matched']);
  });
});
