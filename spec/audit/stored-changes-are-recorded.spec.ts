// Every stored change of a recorded collection is one audit entry, whoever the caller (REST, the local API,
// a bulk write: one per record, a global, a restore): the action, the actor, the resource, the names of the
// fields set (never a hidden one), the outcome and the request (method, path without its query string,
// address, user agent, id, origin). Collections the option leaves out are not recorded. Every answer carries
// the request's id.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import type { AuditEntry } from '../../lib/audit/audit-entry';

const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
const editor = asUser({ id: 'u1', role: 'user' });

describe('the audit log records stored changes', () => {
  let t: TestApp;

  /** Every stored entry, oldest first, as rows of the collection (id as `_id`). */
  async function entries(): Promise<Array<Omit<AuditEntry, 'id'>>> {
    return t.connection.collection('content-router.audit').find({}, { projection: { _id: 0 } }).sort({ _id: 1 }).toArray() as unknown as Promise<Array<Omit<AuditEntry, 'id'>>>;
  }
  async function clear(): Promise<void> {
    await t.connection.collection('content-router.audit').deleteMany({});
  }

  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        { slug: 'posts', access: open, softDelete: true, fields: { title: { type: 'text' }, secret: { type: 'text', hidden: true }, views: { type: 'number' } } },
        { slug: 'notes', access: open, fields: { body: { type: 'text' } } },
      ],
      globals: [{ slug: 'site', access: { read: () => true, update: () => true }, fields: { name: { type: 'text' } } }],
      audit: { collections: ['posts', 'site'] },
    });
  });
  afterAll(async () => t.close());
  beforeEach(clear);

  it('records a REST create, update and delete once each, with who, what and the request', async () => {
    const created = await request(t.app).post('/api/posts?depth=0').set(...editor).set('User-Agent', 'spec-agent').send({ title: 'a' }).expect(201);
    const id = created.body.id as string;
    await request(t.app).patch(`/api/posts/${id}`).set(...editor).send({ title: 'b' }).expect(200);
    await request(t.app).delete(`/api/posts/${id}`).set(...editor).expect(200);

    const rows = await entries();
    expect(rows.map((row) => row.action)).toEqual(['create', 'update', 'delete']);
    const [create, update, remove] = rows;
    expect(create).toEqual({
      at: expect.any(Date),
      action: 'create',
      actor: { type: 'host', id: 'u1' },
      resource: { collection: 'posts', id },
      changedFields: expect.arrayContaining(['title']),
      outcome: { status: 201 },
      request: { id: created.headers['x-request-id'], method: 'POST', path: '/api/posts', ip: expect.any(String), userAgent: 'spec-agent', origin: 'rest' },
    });
    expect(update.changedFields).toEqual(['title']);
    expect(update.request.path).toBe(`/api/posts/${id}`);
    expect(remove).toMatchObject({ action: 'delete', resource: { collection: 'posts', id }, outcome: { status: 200 } });
    expect(remove.changedFields).toBeUndefined();
  });

  it('records a restore as a restore', async () => {
    const { id } = await t.api.local.create('posts', { title: 'r' });
    await t.api.local.delete('posts', id);
    await request(t.app).post(`/api/posts/${id}/restore`).set(...editor).expect(200);
    expect((await entries()).map((row) => row.action)).toEqual(['create', 'delete', 'restore']);
  });

  it('records a local API call with its origin and no request, naming no hidden field', async () => {
    const record = await t.api.local.create('posts', { title: 'local', secret: 's' });
    await t.api.local.update('posts', record.id, { secret: 't', title: 'l2' });
    const [entry, update] = await entries();
    expect(entry.changedFields).toContain('title');
    expect(entry.changedFields).not.toContain('secret');
    expect(update.changedFields).toEqual(['title']);
    expect(entry).toMatchObject({ action: 'create', actor: { type: 'anonymous' }, resource: { collection: 'posts', id: record.id }, request: { origin: 'local' } });
    expect(entry.request).toEqual({ origin: 'local' });
  });

  it('records a bulk update once per record', async () => {
    const ids = await Promise.all(['x', 'y', 'z'].map(async (title) => (await t.api.local.create('posts', { title, views: 1 })).id));
    await clear();
    await request(t.app).patch('/api/posts').query({ where: JSON.stringify({ views: 1 }) }).set(...editor).send({ views: 2 }).expect(200);
    const rows = await entries();
    expect(rows.map((row) => row.action)).toEqual(['update', 'update', 'update']);
    expect(rows.map((row) => row.resource.id).sort()).toEqual([...ids].sort());
    for (const row of rows) expect(row.changedFields).toEqual(['views']);
  });

  it('records a global by its slug', async () => {
    await request(t.app).patch('/api/globals/site').set(...editor).send({ name: 'S' }).expect(200);
    const [entry] = await entries();
    expect(entry).toMatchObject({ action: 'update', resource: { global: 'site' }, changedFields: ['name'] });
    expect(entry.resource).toEqual({ global: 'site' });
  });

  it('does not record a collection the option leaves out', async () => {
    await request(t.app).post('/api/notes').set(...editor).send({ body: 'n' }).expect(201);
    expect(await entries()).toEqual([]);
  });

  it("keeps a sane X-Request-Id the client sent, and replaces one that is not", async () => {
    const kept = await request(t.app).post('/api/posts').set('X-Request-Id', 'trace-123.abc').send({ title: 'k' }).expect(201);
    expect(kept.headers['x-request-id']).toBe('trace-123.abc');
    const replaced = await request(t.app).post('/api/posts').set('X-Request-Id', 'no spaces allowed').send({ title: 'k' }).expect(201);
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await entries()).map((row) => row.request.id)).toEqual(['trace-123.abc', replaced.headers['x-request-id']]);
    const read = await request(t.app).get('/api/posts').expect(200);
    expect(read.headers['x-request-id']).toEqual(expect.any(String));
  });
});
