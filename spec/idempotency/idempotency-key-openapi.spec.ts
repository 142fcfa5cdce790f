// What an API client reads about Idempotency-Key in the OpenAPI document: what "the same request" is (the
// query counts), how long this server keeps a key (its configured TTL, not the package's default), and
// every reason for a 422.
import request from 'supertest';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

jest.setTimeout(30_000);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    idempotency: { ttl: '2h' },
    collections: [{ slug: 'notes', access: { read: () => true, create: () => true }, fields: { title: { type: 'text' } } }],
  });
});
afterAll(async () => {
  await t.close();
});

describe('the OpenAPI document of a route taking an Idempotency-Key', () => {
  it("describes the key with the query as part of the request and this server's TTL", async () => {
    const doc = (await request(t.app).get('/api/docs/openapi.json').expect(200)).body;
    const create = doc.paths['/notes'].post;
    const key = create.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
    expect(key.description).toContain('path with its query');
    expect(key.description).toContain('7200 seconds');
    expect(key.description).not.toContain('by default');
  });

  it('names both reasons for the 422: a different request, or an answer too large to keep', async () => {
    const doc = (await request(t.app).get('/api/docs/openapi.json').expect(200)).body;
    const description: string = doc.paths['/notes'].post.responses['422'].description;
    expect(description).toContain('idempotency_key_reused');
    expect(description).toContain('too large to keep');
  });
});
