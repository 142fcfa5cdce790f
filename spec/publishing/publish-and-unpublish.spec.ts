// Publishing a working copy makes it the published record, with the published record's full validation
// (required fields, types: a 400 that writes nothing), its unique checks (409), its hooks, the draft's
// ETag as If-Match, and the change bus told of a create or an update; an unchanged copy is a 200 that
// writes nothing. Unpublishing removes the published record (a delete on the bus) and keeps the working
// copy. Working copies are made with the operations on the drafts runtime, as draft saves make them.
import request from 'supertest';
import type { ChangeEvent } from '../../lib/changes/change-bus';
import { create } from '../../lib/operations/create';
import { update } from '../../lib/operations/update';
import { representationTag } from '../../lib/operations/precondition';
import { presentFor } from '../../lib/operations/present-records';
import type { CollectionRuntime, Runtime } from '../../lib/operations/runtime';
import type { AccessArgs } from '../../lib/config/types';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { withRuntime } from './router-runtime';

const editor = asUser({ id: 'e1', role: 'editor' });
const author = asUser({ id: 'w1', role: 'author' });
const isEditor = ({ user }: AccessArgs) => user?.role === 'editor';
const canPublish = ({ user }: AccessArgs) => user?.role === 'editor' || user?.role === 'lead';
const isStaff = ({ user }: AccessArgs) => user?.role === 'editor' || user?.role === 'author';

describe('publish and unpublish', () => {
  let t: TestApp;
  let runtime: Runtime;
  let articles: CollectionRuntime;
  const events: ChangeEvent[] = [];
  const hooks: string[] = [];

  beforeAll(async () => {
    ({ built: t, runtime } = await withRuntime(() => createTestApp({
      collections: [
        {
          slug: 'articles',
          versions: { drafts: true },
          access: { read: () => true, create: isStaff, update: isStaff, delete: isEditor, publish: canPublish },
          fields: { title: { type: 'text', required: true }, code: { type: 'text', unique: true }, body: { type: 'text' }, views: { type: 'number' } },
          hooks: {
            beforeChange: [({ operation, data }) => void hooks.push(`beforeChange:${operation}:${String(data.title)}`)],
            afterChange: [({ operation, doc }) => void hooks.push(`afterChange:${operation}:${String(doc.title)}`)],
          },
        },
        { slug: 'plain', access: { read: () => true, create: () => true, update: () => true }, fields: { title: { type: 'text' } } },
      ],
    })));
    articles = runtime.collections.get('articles')!;
    // This router's own writes (the change feed also echoes them from the stream).
    runtime.changes.onChange((event) => void (event.origin === 'local' && events.push(event)));
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    events.length = 0;
    hooks.length = 0;
    await articles.model.deleteMany({});
    await articles.drafts!.model.deleteMany({});
  });

  /** A working copy made as a draft save makes it: create on the drafts runtime. */
  async function draft(data: Record<string, unknown>): Promise<string> {
    const record = await create({ runtime, collection: articles.drafts!, user: null, overrideAccess: true, data });
    hooks.length = 0;
    return record.id as string;
  }
  async function saveDraft(id: string, data: Record<string, unknown>): Promise<void> {
    await update({ runtime, collection: articles.drafts!, user: null, overrideAccess: true, id, data });
    hooks.length = 0;
  }
  async function draftTag(id: string): Promise<string> {
    const row = await articles.drafts!.model.findById(id).lean();
    const [shown] = await presentFor({ runtime, collection: articles.drafts!, user: { id: 'e1', role: 'editor' } }, [row as never]);
    return representationTag(shown);
  }

  it('a first publish creates the published record with the working copy id, and the bus carries a create', async () => {
    const id = await draft({ title: 'Hello', code: 'A', body: 'text' });
    await request(t.app).get(`/api/articles/${id}`).expect(404);
    const res = await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
    expect(res.body).toMatchObject({ id, title: 'Hello', code: 'A', body: 'text' });
    expect(res.headers.etag).toBeDefined();
    const got = await request(t.app).get(`/api/articles/${id}`).expect(200);
    expect(got.body).toMatchObject({ id, title: 'Hello' });
    expect(events.map((e) => [e.slug, e.type, e.ids])).toEqual([['articles', 'create', [id]]]);
    expect(hooks).toEqual(['beforeChange:create:Hello', 'afterChange:create:Hello']);
    // The working copy stays, the same as the published record.
    expect(await articles.drafts!.model.exists({ _id: id })).toBeTruthy();
  });

  it('a later publish updates the published record to match the copy: fields set and cleared; the bus carries an update', async () => {
    const id = await draft({ title: 'One', code: 'B', body: 'first', views: 3 });
    await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
    await saveDraft(id, { title: 'Two', body: null });
    events.length = 0;
    hooks.length = 0;
    const res = await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
    expect(res.body).toMatchObject({ id, title: 'Two', code: 'B', views: 3 });
    expect(res.body.body ?? null).toBeNull();
    const stored = await articles.model.findById(id).lean();
    expect(stored).not.toHaveProperty('body');
    expect(events.map((e) => [e.type, e.ids])).toEqual([['update', [id]]]);
    expect(new Set(events[0].fields)).toEqual(new Set(['title', 'body']));
    expect(hooks).toEqual(['beforeChange:update:Two', 'afterChange:update:Two']);
  });

  it('publishing an unchanged copy is a 200 that writes nothing', async () => {
    const id = await draft({ title: 'Same', code: 'C' });
    await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
    const before = await articles.model.findById(id).lean();
    events.length = 0;
    hooks.length = 0;
    const res = await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
    expect(res.body).toMatchObject({ id, title: 'Same' });
    expect(await articles.model.findById(id).lean()).toEqual(before);
    expect(events).toEqual([]);
    expect(hooks).toEqual([]);
  });

  it('a record with no working copy yet publishes as unchanged', async () => {
    const [{ insertedId }] = [await articles.model.collection.insertOne({ title: 'Before drafts', _rev: 1, createdAt: new Date(), updatedAt: new Date() })];
    const res = await request(t.app).post(`/api/articles/${String(insertedId)}/publish`).set(...editor).expect(200);
    expect(res.body).toMatchObject({ title: 'Before drafts' });
    expect(events).toEqual([]);
  });

  it('a copy that fails validation as a published record is a 400 listing its fields, and writes nothing', async () => {
    const id = await draft({ body: 'no title yet' });
    const res = await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'title', code: 'required' })]);
    expect(await articles.model.countDocuments()).toBe(0);
    expect(events).toEqual([]);
  });

  it('a unique value another published record holds is a 409, and writes nothing', async () => {
    const first = await draft({ title: 'First', code: 'U' });
    await request(t.app).post(`/api/articles/${first}/publish`).set(...editor).expect(200);
    const second = await draft({ title: 'Second', code: 'U' });
    events.length = 0;
    const res = await request(t.app).post(`/api/articles/${second}/publish`).set(...editor).expect(409);
    expect(res.body.code).toBe('unique_conflict');
    expect(await articles.model.countDocuments()).toBe(1);
    expect(events).toEqual([]);
  });

  it('needs the publish rule, and create on a first publish', async () => {
    const id = await draft({ title: 'Ruled', code: 'R' });
    await request(t.app).post(`/api/articles/${id}/publish`).expect(401);
    await request(t.app).post(`/api/articles/${id}/publish`).set(...author).expect(403);
    // May publish, may not create: a first publish is a create.
    const lead = asUser({ id: 'l1', role: 'lead' });
    await request(t.app).post(`/api/articles/${id}/publish`).set(...lead).expect(403);
    expect(await articles.model.countDocuments()).toBe(0);
    await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
    await saveDraft(id, { title: 'Ruled again' });
    await request(t.app).post(`/api/articles/${id}/publish`).set(...lead).expect(200);
  });

  it('takes the draft ETag as If-Match: 412 when stale, nothing written', async () => {
    const id = await draft({ title: 'Tagged', code: 'T' });
    const tag = await draftTag(id);
    await saveDraft(id, { title: 'Tagged again' });
    const stale = await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).set('If-Match', tag).expect(412);
    // The answer says which tag it takes: a client that sent the published record's is told so, not to "retry".
    expect(stale.body.detail).toContain("the working copy's ETag");
    expect(await articles.model.countDocuments()).toBe(0);
    await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).set('If-Match', await draftTag(id)).expect(200);
  });

  it('unknown records are 404; a collection without drafts has no publish route (the path stays free), and the local API says drafts are off', async () => {
    await request(t.app).post('/api/articles/64b7f0f0f0f0f0f0f0f0f0f0/publish').set(...editor).expect(404);
    await request(t.app).post('/api/plain/64b7f0f0f0f0f0f0f0f0f0f0/publish').set(...editor).expect(404);
    await expect(t.api.local.publish('plain', '64b7f0f0f0f0f0f0f0f0f0f0')).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/drafts are off/i) });
    expect(t.api.routes.map((r) => r.operationId)).not.toContain('plain.publish');
  });

  it('unpublish removes the published record (a delete on the bus) and keeps the working copy', async () => {
    const id = await draft({ title: 'Gone', code: 'G' });
    await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
    events.length = 0;
    const res = await request(t.app).post(`/api/articles/${id}/unpublish`).set(...editor).expect(200);
    expect(res.body).toMatchObject({ id, title: 'Gone', _status: 'draft' });
    await request(t.app).get(`/api/articles/${id}`).expect(404);
    expect(await articles.drafts!.model.exists({ _id: id })).toBeTruthy();
    expect(events.map((e) => [e.type, e.ids])).toEqual([['delete', [id]]]);
    await request(t.app).post(`/api/articles/${id}/unpublish`).set(...editor).expect(404);
    await request(t.app).post(`/api/articles/${id}/unpublish`).set(...author).expect(403);
  });

  it('unpublish of a record with no working copy makes one from the published record first', async () => {
    const { insertedId } = await articles.model.collection.insertOne({ title: 'Old', _rev: 1, createdAt: new Date(), updatedAt: new Date() });
    await request(t.app).post(`/api/articles/${String(insertedId)}/unpublish`).set(...editor).expect(200);
    expect(await articles.model.countDocuments()).toBe(0);
    expect(await articles.drafts!.model.findById(insertedId).lean()).toMatchObject({ title: 'Old' });
  });

  it('the local API publishes and unpublishes', async () => {
    const id = await draft({ title: 'Local', code: 'L' });
    const published = await t.api.local.publish('articles', id);
    expect(published).toMatchObject({ id, title: 'Local' });
    await expect(t.api.local.publish('articles', id, { user: { id: 'w1', role: 'author' } })).rejects.toMatchObject({ status: 403 });
    const copy = await t.api.local.unpublish('articles', id);
    expect(copy).toMatchObject({ id, _status: 'draft' });
    expect(await articles.model.countDocuments()).toBe(0);
  });
});

describe('publish and unpublish a global', () => {
  let t: TestApp;
  let runtime: Runtime;
  beforeAll(async () => {
    ({ built: t, runtime } = await withRuntime(() => createTestApp({
      globals: [{ slug: 'site', versions: { drafts: true }, access: { read: () => true, update: () => true, publish: isEditor }, fields: { name: { type: 'text', required: true } } }],
    })));
  });
  afterAll(() => t.close());

  it('publishes the global working copy, and unpublish brings back its defaults', async () => {
    const site = runtime.globals.get('site')!;
    await site.drafts!.model.create({ _id: 'site', name: 'Draft name' });
    await request(t.app).post('/api/globals/site/publish').set(...author).expect(403);
    const res = await request(t.app).post('/api/globals/site/publish').set(...editor).expect(200);
    expect(res.body).toMatchObject({ name: 'Draft name' });
    expect(res.body).not.toHaveProperty('id');
    expect((await request(t.app).get('/api/globals/site').expect(200)).body).toMatchObject({ name: 'Draft name' });
    await request(t.app).post('/api/globals/site/unpublish').set(...editor).expect(200);
    expect((await request(t.app).get('/api/globals/site').expect(200)).body.name ?? null).toBeNull();
    expect(await site.drafts!.model.findById('site').lean()).toMatchObject({ name: 'Draft name' });
  });
});

describe('publish with hooks that change values, and requireIfMatch', () => {
  let t: TestApp;
  let runtime: Runtime;
  beforeAll(async () => {
    ({ built: t, runtime } = await withRuntime(() =>
      createTestApp({
        collections: [
          {
            slug: 'pages',
            versions: { drafts: true },
            requireIfMatch: true,
            access: { read: () => true, create: () => true, update: () => true, publish: () => true },
            fields: { title: { type: 'text', required: true }, slug: { type: 'text' }, secret: { type: 'text', hidden: true } },
            hooks: { beforeChange: [({ data }) => ({ ...data, slug: String(data.title).toLowerCase() })] },
          },
        ],
      }),
    ));
  });
  afterAll(() => t.close());

  it('428 without If-Match; with it, the published values hooks set are written back to the working copy; hidden values publish', async () => {
    const pages = runtime.collections.get('pages')!;
    // Made directly: the hook has not run on it.
    const { insertedId: id } = await pages.drafts!.model.collection.insertOne({ title: 'Hello World', secret: 's3', _rev: 1, createdAt: new Date(), updatedAt: new Date() });
    await request(t.app).post(`/api/pages/${String(id)}/publish`).set(...editor).expect(428);
    const row = await pages.drafts!.model.findById(id).lean();
    const [shown] = await presentFor({ runtime, collection: pages.drafts!, user: { id: 'e1', role: 'editor' } }, [row as never]);
    const res = await request(t.app).post(`/api/pages/${String(id)}/publish`).set(...editor).set('If-Match', representationTag(shown)).expect(200);
    expect(res.body).toMatchObject({ title: 'Hello World', slug: 'hello world' });
    expect(res.body).not.toHaveProperty('secret');
    expect(await pages.model.findById(id).lean()).toMatchObject({ secret: 's3', slug: 'hello world' });
    expect(await pages.drafts!.model.findById(id).lean()).toMatchObject({ title: 'Hello World', slug: 'hello world', secret: 's3' });
  });
});
