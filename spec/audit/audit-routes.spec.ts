// Reading the audit log: GET /audit (filters on action, actor, resource, outcome and time, cursor pages newest
// first), GET /<slug>/:id/audit, GET /audit/export (NDJSON), api.audit.find; who may read (admins by default,
// a rule that may answer a where); bad input a 400, anonymous 401, others 403, any method but GET 405.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import type { AuditEntry } from '../../lib/audit/audit-entry';

const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
const admin = asUser({ id: 'admin1', role: 'admin' });
const alice = asUser({ id: 'alice', role: 'user' });
const bob = asUser({ id: 'bob', role: 'user' });

describe('the audit log routes', () => {
  let t: TestApp;
  let first: string;
  let second: string;

  beforeAll(async () => {
    t = await createTestApp({
      collections: [{ slug: 'posts', access: open, fields: { title: { type: 'text' } } }],
      audit: {},
    });
    first = (await request(t.app).post('/api/posts').set(...alice).send({ title: 'a' }).expect(201)).body.id;
    second = (await request(t.app).post('/api/posts').set(...bob).send({ title: 'b' }).expect(201)).body.id;
    await request(t.app).patch(`/api/posts/${first}`).set(...alice).send({ title: 'a2' }).expect(200);
    await request(t.app).delete(`/api/posts/${second}`).set(...bob).expect(200);
  });
  afterAll(async () => t.close());

  const list = (query: Record<string, string> = {}, who: [string, string] = admin) => request(t.app).get('/api/audit').query(query).set(...who);

  it('lists every entry newest first in the cursor envelope', async () => {
    const { body } = await list().expect(200);
    expect(body.data.map((entry: AuditEntry) => entry.action)).toEqual(['delete', 'update', 'create', 'create']);
    expect(body.meta).toEqual({ hasNextPage: false, hasPrevPage: false, nextCursor: null, prevCursor: null });
    expect(body.data[0]).toMatchObject({ id: expect.any(String), at: expect.any(String), actor: { type: 'host', id: 'bob' }, resource: { collection: 'posts', id: second } });
  });

  it('pages by cursor, forwards and back', async () => {
    const one = await list({ limit: '3', cursor: '' }).expect(200);
    expect(one.body.data).toHaveLength(3);
    expect(one.body.meta.hasNextPage).toBe(true);
    const two = await list({ limit: '3', cursor: one.body.meta.nextCursor }).expect(200);
    expect(two.body.data.map((entry: AuditEntry) => entry.resource.id)).toEqual([first]);
    expect(two.body.meta).toMatchObject({ hasNextPage: false, hasPrevPage: true });
    const back = await list({ limit: '3', cursor: two.body.meta.prevCursor }).expect(200);
    expect(back.body.data).toEqual(one.body.data);
  });

  it('filters on action, actor, resource, outcome and time', async () => {
    const ids = async (where: unknown) => (await list({ where: JSON.stringify(where) }).expect(200)).body.data.map((entry: AuditEntry) => `${entry.action}:${entry.resource.id}`);
    expect(await ids({ action: 'create' })).toEqual([`create:${second}`, `create:${first}`]);
    expect(await ids({ 'actor.id': 'alice' })).toEqual([`update:${first}`, `create:${first}`]);
    expect(await ids({ 'actor.type': { in: ['host'] }, 'resource.id': second })).toEqual([`delete:${second}`, `create:${second}`]);
    expect(await ids({ 'resource.collection': 'posts', 'outcome.status': 200 })).toEqual([`delete:${second}`, `update:${first}`]);
    expect(await ids({ at: { gt: '2999-01-01T00:00:00Z' } })).toEqual([]);
    expect(await ids({ or: [{ action: 'delete' }, { action: 'update' }] })).toEqual([`delete:${second}`, `update:${first}`]);
    // The bracket dialect too.
    const bracket = await request(t.app).get(`/api/audit?where[actor.id][eq]=bob&where[action]=delete`).set(...admin).expect(200);
    expect(bracket.body.data).toHaveLength(1);
  });

  it('refuses an unknown field, operator, parameter or a bad value with a 400', async () => {
    await list({ where: JSON.stringify({ 'request.ip': '1.2.3.4' }) }).expect(400);
    await list({ where: JSON.stringify({ changedFields: 'title' }) }).expect(400);
    await list({ where: JSON.stringify({ action: { regex: 'x' } }) }).expect(400);
    await list({ where: JSON.stringify({ at: 'yesterday' }) }).expect(400);
    await list({ sort: 'at' }).expect(400);
    await list({ cursor: 'nonsense' }).expect(400);
    const { body, headers } = await list({ limit: '501' }).expect(400);
    expect(headers['content-type']).toMatch(/application\/problem\+json/);
    expect(body.status).toBe(400);
  });

  it("lists one record's entries", async () => {
    const { body } = await request(t.app).get(`/api/posts/${first}/audit`).set(...admin).expect(200);
    expect(body.data.map((entry: AuditEntry) => entry.action)).toEqual(['update', 'create']);
    await request(t.app).get(`/api/posts/${first}/audit`).query({ where: JSON.stringify({ action: 'update' }) }).set(...admin).expect(200);
  });

  it('exports every matching entry as NDJSON, and refuses a bad filter before the first byte', async () => {
    const all = await request(t.app).get('/api/audit/export').set(...admin).buffer(true).parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(null, text));
    }).expect(200);
    expect(all.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = (all.body as string).trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEntry);
    expect(lines.map((entry) => entry.action)).toEqual(['delete', 'update', 'create', 'create']);
    const some = await request(t.app).get('/api/audit/export').query({ where: JSON.stringify({ action: 'delete' }) }).set(...admin).buffer(true).parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(null, text));
    }).expect(200);
    expect((some.body as string).trimEnd().split('\n')).toHaveLength(1);
    const bad = await request(t.app).get('/api/audit/export').query({ where: JSON.stringify({ nope: 1 }) }).set(...admin).expect(400);
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
    await request(t.app).get('/api/audit/export').query({ limit: '5' }).set(...admin).expect(400);
  });

  it('is for admins: anonymous 401, others 403, an API key needs the admin scope', async () => {
    await request(t.app).get('/api/audit').expect(401);
    await list({}, alice).expect(403);
    await request(t.app).get('/api/audit/export').set(...alice).expect(403);
    await request(t.app).get(`/api/posts/${first}/audit`).expect(401);
    await list({}, asUser({ id: 'k', role: 'admin', scopes: ['read'] })).expect(403);
    await list({}, asUser({ id: 'k', role: 'admin', scopes: ['admin'] })).expect(200);
  });

  it('writes nothing: every method but GET is a 405', async () => {
    await request(t.app).post('/api/audit').set(...admin).send({}).expect(405);
    await request(t.app).delete('/api/audit').set(...admin).expect(405);
    await request(t.app).put('/api/audit/export').set(...admin).send({}).expect(405);
    await request(t.app).delete(`/api/posts/${first}/audit`).set(...admin).expect(405);
  });

  it('serves server code through api.audit.find', async () => {
    const page = await t.api.audit!.find({ where: { action: 'create' }, limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.data[0].at).toBeInstanceOf(Date);
    const next = await t.api.audit!.find({ where: { action: 'create' }, limit: 1, cursor: page.meta.nextCursor! });
    expect(next.data[0].resource.id).toBe(first);
    await expect(t.api.audit!.find({ user: null })).rejects.toMatchObject({ status: 401 });
    await expect(t.api.audit!.find({ where: { nope: 1 } })).rejects.toMatchObject({ status: 400 });
  });

  it('describes its routes in the OpenAPI document', async () => {
    const { body } = await request(t.app).get('/api/docs/openapi.json').expect(200);
    expect(Object.keys(body.paths['/audit'])).toEqual(['get']);
    expect(body.paths['/audit/export'].get.responses['200'].content).toHaveProperty(['application/x-ndjson']);
    expect(body.paths['/posts/{id}/audit'].get.operationId).toBe('posts.audit');
  });
});

describe('a read rule of its own', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      collections: [{ slug: 'posts', access: open, fields: { title: { type: 'text' } } }],
      audit: { access: { read: ({ user }) => (user ? { 'actor.id': { eq: user.id } } : false) } },
    });
    await request(t.app).post('/api/posts').set(...alice).send({ title: 'a' }).expect(201);
    await request(t.app).post('/api/posts').set(...bob).send({ title: 'b' }).expect(201);
  });
  afterAll(async () => t.close());

  it('shows each caller its own actions, and refuses anonymous callers', async () => {
    const { body } = await request(t.app).get('/api/audit').set(...alice).expect(200);
    expect(body.data.map((entry: AuditEntry) => entry.actor.id)).toEqual(['alice']);
    await request(t.app).get('/api/audit').expect(401);
  });
});
