// If-Match parsing: an entity-tag may hold a comma (RFC 9110 etagc is any visible character but
// the quote), so a well-formed list is a 412 when no tag matches, never a 400 for the header's syntax.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = asUser({ id: 'a1', role: 'admin' });

describe('If-Match with commas inside quoted tags', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }] });
  });
  afterAll(() => t.close());

  it('answers 412 (not 400) to a tag that holds a comma, writing nothing', async () => {
    const created = await request(t.app).post('/api/posts').set(...admin).send({ title: 'a' }).expect(201);
    const res = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...admin).set('If-Match', '"x,y"').send({ title: 'lost' }).expect(412);
    expect(res.body.code).toBe('precondition_failed');
    expect(await t.connection.collection('posts').countDocuments({ title: 'lost' })).toBe(0);
  });

  it('writes when a list holding such a tag also names the current one', async () => {
    const created = await request(t.app).post('/api/posts').set(...admin).send({ title: 'b' }).expect(201);
    await request(t.app).patch(`/api/posts/${created.body.id}`).set(...admin).set('If-Match', `"x,y", W/"z", ${created.headers.etag}`).send({ title: 'b2' }).expect(200);
  });

  it.each([
    ['two tags without a comma between them', '"a""b"'],
    ['an unterminated tag', '"a, "b"'],
    ['a tag after *', '*, "a"'],
  ])('still answers 400 naming If-Match for %s', async (_name, value) => {
    const created = await request(t.app).post('/api/posts').set(...admin).send({ title: 'c' }).expect(201);
    const res = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...admin).set('If-Match', value).send({ title: 'c2' }).expect(400);
    expect(res.body.code).toBe('invalid_header');
    expect(res.body.detail).toContain('If-Match');
  });
});
