// A record's history over REST and the local API: every stored change recorded (op, actor, changed
// fields, numbers per record that are never reused), the list (newest first, pages and cursors), one
// version shaped for its caller (hidden and unreadable fields out, afterRead run), diffs, restore through
// the ordinary update (field access, hooks, unique values, If-Match; a record deleted for good comes back
// under its id), readVersions, globals, and the 404s and 400s of bad input.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { createTestClock } from '../helpers/test-clock';
import { lintWithRedocly, validateOpenApiDocument } from '../openapi/openapi-validators';

const admin = asUser({ id: 'a1', role: 'admin' });
const editor = asUser({ id: 'e1', role: 'editor', collection: 'staff' });
const viewer = asUser({ id: 'v1', role: 'viewer' });
const other = asUser({ id: 'e2', role: 'editor' });

describe('versions: the history of a record', () => {
  let t: TestApp;
  const clock = createTestClock();
  const operations: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      clock,
      collections: [
        {
          slug: 'posts',
          versions: true,
          access: {
            read: () => true,
            update: ({ user }) => user !== null,
            readVersions: ({ user }) => (user ? user.role !== 'viewer' : false),
          },
          hooks: {
            beforeChange: [
              ({ data, operation }) => {
                operations.push(operation);
                return data;
              },
            ],
          },
          fields: {
            title: { type: 'text', required: true },
            body: { type: 'text', hooks: { afterRead: [({ value }) => (typeof value === 'string' ? `${value}!` : value)] } },
            secret: { type: 'text', hidden: true },
            notes: { type: 'text', access: { read: ({ user }) => user?.role === 'admin' } },
            locked: { type: 'text', access: { update: ({ user }) => user?.role === 'admin' } },
            code: { type: 'text', unique: true },
          },
        },
        { slug: 'plain', fields: { title: { type: 'text' } } },
        {
          slug: 'owned',
          versions: true,
          access: { readVersions: ({ user }) => (user ? { owner: { eq: user.id } } : false) },
          fields: { title: { type: 'text' }, owner: { type: 'text' } },
        },
      ],
      globals: [{ slug: 'site', versions: true, fields: { name: { type: 'text' } } }],
    });
  });
  afterAll(() => t.close());

  const post = async (body: Record<string, unknown>, as = editor) => (await request(t.app).post('/api/posts').set(...as).send(body).expect(201)).body as { id: string };
  const versions = async (id: string, query = '', as = admin) => (await request(t.app).get(`/api/posts/${id}/versions${query}`).set(...as).expect(200)).body;

  it('records every stored change with its op, who made it (no role) and the fields it changed, numbered per record', async () => {
    const { id } = await post({ title: 'one', body: 'b' });
    await request(t.app).patch(`/api/posts/${id}`).set(...editor).send({ title: 'two' }).expect(200);
    await t.api.local.update('posts', id, { body: 'c' });
    await request(t.app).delete(`/api/posts/${id}`).set(...admin).expect(200);
    const { data, meta } = await versions(id);
    expect(meta.total).toBe(4);
    expect(data.map((v: { version: number; op: string }) => [v.version, v.op])).toEqual([
      [4, 'delete'],
      [3, 'update'],
      [2, 'update'],
      [1, 'create'],
    ]);
    expect(data[3].actor).toEqual({ id: 'e1', collection: 'staff', origin: 'rest' });
    expect(data[2].changedFields).toEqual(['title']);
    expect(data[1].actor).toEqual({ origin: 'local' });
    expect(data[1].changedFields).toEqual(['body']);
    expect(data[0].actor).toEqual({ id: 'a1', origin: 'rest' });
    expect(new Date(data[0].createdAt).toISOString()).toBe(data[0].createdAt);
  });

  it('lists newest first by page and by cursor', async () => {
    const { id } = await post({ title: 'p0' });
    for (let i = 1; i <= 4; i++) await request(t.app).patch(`/api/posts/${id}`).set(...editor).send({ title: `p${i}` }).expect(200);
    const page2 = await versions(id, '?perPage=2&page=2');
    expect(page2.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    expect(page2.meta).toMatchObject({ total: 5, page: 2, perPage: 2, totalPages: 3 });
    const first = await versions(id, '?cursor=&perPage=2');
    expect(first.data.map((v: { version: number }) => v.version)).toEqual([5, 4]);
    expect(first.meta.hasNextPage).toBe(true);
    const second = await versions(id, `?perPage=2&cursor=${first.meta.nextCursor}`);
    expect(second.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    const back = await versions(id, `?perPage=2&cursor=${second.meta.prevCursor}`);
    expect(back.data.map((v: { version: number }) => v.version)).toEqual([5, 4]);
    const docs = await versions(id, '?limit=1');
    expect(docs.docs).toHaveLength(1);
    await request(t.app).get(`/api/posts/${id}/versions?cursor=nonsense`).set(...admin).expect(400);
  });

  it('shows a version only through the read steps of its caller: hidden and unreadable fields out, afterRead run', async () => {
    const created = await t.api.local.create('posts', { title: 'shaped', body: 'text', secret: 's3cret', notes: 'for admins' });
    await t.api.local.update('posts', created.id, { secret: 'other', notes: 'changed', title: 'shaped 2' });
    const asEditor = (await request(t.app).get(`/api/posts/${created.id}/versions/1`).set(...editor).expect(200)).body;
    expect(asEditor).toMatchObject({ version: 1, op: 'create', doc: { id: created.id, title: 'shaped', body: 'text!' } });
    expect(asEditor.doc).not.toHaveProperty('secret');
    expect(asEditor.doc).not.toHaveProperty('notes');
    expect(JSON.stringify(asEditor)).not.toContain('s3cret');
    expect(asEditor.changedFields).toEqual(['title', 'body']);
    const asAdmin = (await request(t.app).get(`/api/posts/${created.id}/versions/1`).set(...admin).expect(200)).body;
    expect(asAdmin.doc.notes).toBe('for admins');
    expect(asAdmin.doc).not.toHaveProperty('secret');
    const list = await versions(created.id, '', editor);
    expect(list.data[0].changedFields).toEqual(['title']);
    const diff = (await request(t.app).get(`/api/posts/${created.id}/versions/2/diff`).set(...editor).expect(200)).body;
    expect(diff).toEqual({ from: 1, to: 2, changes: [{ field: 'title', before: 'shaped', after: 'shaped 2' }] });
  });

  it('diffs against the version before, another version, or the record as it stands', async () => {
    const { id } = await post({ title: 'd1', body: 'x' });
    await request(t.app).patch(`/api/posts/${id}`).set(...editor).send({ title: 'd2' }).expect(200);
    await request(t.app).patch(`/api/posts/${id}`).set(...editor).send({ body: 'y' }).expect(200);
    const first = (await request(t.app).get(`/api/posts/${id}/versions/1/diff`).set(...editor).expect(200)).body;
    expect(first.from).toBeNull();
    expect(first.changes).toEqual(expect.arrayContaining([{ field: 'title', before: null, after: 'd1' }]));
    const against1 = (await request(t.app).get(`/api/posts/${id}/versions/3/diff?against=1`).set(...editor).expect(200)).body;
    expect(against1).toEqual({ from: 1, to: 3, changes: [{ field: 'title', before: 'd1', after: 'd2' }, { field: 'body', before: 'x!', after: 'y!' }] });
    const current = (await request(t.app).get(`/api/posts/${id}/versions/1/diff?against=current`).set(...editor).expect(200)).body;
    expect(current).toEqual({ from: 'current', to: 1, changes: [{ field: 'title', before: 'd2', after: 'd1' }, { field: 'body', before: 'y!', after: 'x!' }] });
  });

  it('answers bad input with 400s and 404s, never a 500', async () => {
    const { id } = await post({ title: 'bad' });
    const bad = await request(t.app).get(`/api/posts/${id}/versions/1/diff?against=yesterday`).set(...editor).expect(400);
    expect(bad.body.errors[0].field).toBe('against');
    await request(t.app).get(`/api/posts/${id}/versions/1/diff?against=draft`).set(...editor).expect(400);
    await request(t.app).get(`/api/posts/${id}/versions/1/diff?against=9`).set(...editor).expect(404);
    await request(t.app).get(`/api/posts/${id}/versions/9`).set(...editor).expect(404);
    await request(t.app).get(`/api/posts/${id}/versions/abc`).set(...editor).expect(404);
    await request(t.app).get(`/api/posts/${id}/versions/0`).set(...editor).expect(404);
    await request(t.app).get(`/api/posts/${id}/versions/1.5`).set(...editor).expect(404);
    await request(t.app).get(`/api/posts/not-an-id/versions`).set(...editor).expect(404);
    await request(t.app).get(`/api/posts/${'0'.repeat(24)}/versions`).set(...editor).expect(404);
    await request(t.app).post(`/api/posts/${id}/versions/9/restore`).set(...editor).expect(404);
    const { body: plain } = await request(t.app).post('/api/plain').set(...admin).send({ title: 'p' }).expect(201);
    const off = await request(t.app).get(`/api/plain/${plain.id}/versions`).set(...admin).expect(404);
    expect(off.headers['content-type']).toContain('application/problem+json');
    expect(off.body.detail).toMatch(/versions are off/i);
    await request(t.app).post(`/api/plain/${plain.id}/versions/1/restore`).set(...admin).expect(404);
    expect(t.hostErrors).toEqual([]);
  });

  it('needs readVersions: 401 without a caller, 403 for one the rule refuses', async () => {
    const { id } = await post({ title: 'guarded' });
    await request(t.app).get(`/api/posts/${id}/versions`).expect(401);
    await request(t.app).get(`/api/posts/${id}/versions`).set(...viewer).expect(403);
    await request(t.app).get(`/api/posts/${id}/versions/1`).set(...viewer).expect(403);
    await request(t.app).get(`/api/posts/${id}/versions/1/diff`).set(...viewer).expect(403);
    // The viewer may update, but restoring reads the history.
    await request(t.app).post(`/api/posts/${id}/versions/1/restore`).set(...viewer).expect(403);
    await expect(t.api.local.versions('posts', id, { user: null })).rejects.toMatchObject({ status: 401 });
  });

  it('matches a where of readVersions against the record as its history last stored it, deleted records too', async () => {
    const mine = await t.api.local.create('owned', { title: 'mine', owner: 'e1' });
    const theirs = await t.api.local.create('owned', { title: 'theirs', owner: 'e2' });
    await request(t.app).get(`/api/owned/${mine.id}/versions`).set(...editor).expect(200);
    await request(t.app).get(`/api/owned/${theirs.id}/versions`).set(...editor).expect(404);
    await request(t.app).get(`/api/owned/${theirs.id}/versions/1`).set(...editor).expect(404);
    await request(t.app).post(`/api/owned/${theirs.id}/versions/1/restore`).set(...editor).expect(404);
    // Handed over: the history follows its newest state.
    await t.api.local.update('owned', theirs.id, { owner: 'e1' });
    await request(t.app).get(`/api/owned/${theirs.id}/versions/1`).set(...editor).expect(200);
    await t.api.local.delete('owned', mine.id);
    expect((await request(t.app).get(`/api/owned/${mine.id}/versions`).set(...editor).expect(200)).body.data[0].op).toBe('delete');
    await request(t.app).get(`/api/owned/${mine.id}/versions`).set(...other).expect(404);
  });

  it('restores a version through the ordinary update, as a new version', async () => {
    const { id } = await post({ title: 'r1', body: 'first' });
    const edited = await request(t.app).patch(`/api/posts/${id}`).set(...editor).send({ title: 'r2', body: null }).expect(200);
    operations.length = 0;
    // A stale If-Match: nothing written.
    await request(t.app).post(`/api/posts/${id}/versions/1/restore`).set(...editor).set('If-Match', '"stale"').expect(412);
    const restored = await request(t.app).post(`/api/posts/${id}/versions/1/restore`).set(...editor).set('If-Match', edited.headers.etag).expect(200);
    expect(restored.body).toMatchObject({ id, title: 'r1', body: 'first!' });
    expect(restored.headers.etag).toBeDefined();
    expect(operations).toEqual(['update']);
    const { data } = await versions(id);
    expect(data[0]).toMatchObject({ version: 3, op: 'restore', actor: { id: 'e1', origin: 'rest' } });
    expect(data[0].changedFields.sort()).toEqual(['body', 'title']);
  });

  it('holds a restore to field update access and unique values', async () => {
    const { id } = await post({ title: 'l1', locked: 'v1', code: 'c-1' }, admin);
    await request(t.app).patch(`/api/posts/${id}`).set(...admin).send({ locked: 'v2', code: 'c-2' }).expect(200);
    await request(t.app).post(`/api/posts/${id}/versions/1/restore`).set(...editor).expect(403);
    await post({ title: 'taker', code: 'c-1' }, admin);
    const taken = await request(t.app).post(`/api/posts/${id}/versions/1/restore`).set(...admin).expect(409);
    expect(taken.body.errors[0].field).toBe('code');
    const still = await request(t.app).get(`/api/posts/${id}`).set(...admin).expect(200);
    expect(still.body).toMatchObject({ locked: 'v2', code: 'c-2' });
  });

  it('creates a record deleted for good again under its id, its numbers continuing', async () => {
    const { id } = await post({ title: 'gone', body: 'b' });
    await request(t.app).delete(`/api/posts/${id}`).set(...admin).expect(200);
    await request(t.app).get(`/api/posts/${id}`).expect(404);
    const back = await request(t.app).post(`/api/posts/${id}/versions/2/restore`).set(...editor).expect(200);
    expect(back.body).toMatchObject({ id, title: 'gone', body: 'b!' });
    await request(t.app).get(`/api/posts/${id}`).expect(200);
    const { data } = await versions(id);
    expect(data.map((v: { version: number; op: string }) => [v.version, v.op])).toEqual([
      [3, 'restore'],
      [2, 'delete'],
      [1, 'create'],
    ]);
  });

  it('keeps the history of a global under /globals/<slug>/versions, and restores it', async () => {
    await request(t.app).patch('/api/globals/site').set(...admin).send({ name: 'First' }).expect(200);
    await request(t.app).patch('/api/globals/site').set(...admin).send({ name: 'Second' }).expect(200);
    const { body } = await request(t.app).get('/api/globals/site/versions').set(...admin).expect(200);
    expect(body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const one = (await request(t.app).get('/api/globals/site/versions/1').set(...admin).expect(200)).body;
    expect(one.doc).toMatchObject({ name: 'First' });
    expect(one.doc).not.toHaveProperty('id');
    const diff = (await request(t.app).get('/api/globals/site/versions/2/diff').set(...admin).expect(200)).body;
    expect(diff.changes).toEqual([{ field: 'name', before: 'First', after: 'Second' }]);
    const restored = await request(t.app).post('/api/globals/site/versions/1/restore').set(...admin).expect(200);
    expect(restored.body).toMatchObject({ name: 'First' });
    const after = (await request(t.app).get('/api/globals/site/versions').set(...admin).expect(200)).body;
    expect(after.data[0]).toMatchObject({ version: 3, op: 'restore' });
    await request(t.app).get('/api/globals/site/versions').expect(401);
  });

  it('describes the history routes of versioned collections and globals in the OpenAPI document, and no others', async () => {
    const { body: doc } = await request(t.app).get('/api/docs/openapi.json').expect(200);
    expect(validateOpenApiDocument(doc)).toMatchObject({ valid: true });
    const paths = Object.keys(doc.paths as Record<string, unknown>);
    expect(paths).toEqual(
      expect.arrayContaining(['/posts/{id}/versions', '/posts/{id}/versions/{version}', '/posts/{id}/versions/{version}/diff', '/posts/{id}/versions/{version}/restore', '/globals/site/versions']),
    );
    expect(paths.filter((path) => path.startsWith('/plain/') && path.includes('versions'))).toEqual([]);
    // Nothing a record's own routes do not get too (this router has no auth feature: no security schemes).
    const problems = lintWithRedocly(doc);
    const ofRecords = new Set(problems.filter((problem) => problem.location[0]?.pointer.startsWith('#/paths/~1posts~1{id}/')).map((problem) => problem.ruleId));
    const lint = problems.filter((problem) => problem.location[0]?.pointer.includes('versions') && !ofRecords.has(problem.ruleId));
    expect(lint.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}`)).toEqual([]);
  });

  it('serves the same through the local API', async () => {
    const record = await t.api.local.create('posts', { title: 'L1' });
    await t.api.local.update('posts', record.id, { title: 'L2' });
    const page = await t.api.local.versions('posts', record.id, { perPage: 1 });
    expect(page.docs.map((v) => v.version)).toEqual([2]);
    expect(page.total).toBe(2);
    const one = await t.api.local.version('posts', record.id, 1);
    expect(one.doc).toMatchObject({ title: 'L1' });
    expect(await t.api.local.diffVersion('posts', record.id, 2, { against: 1 })).toEqual({ from: 1, to: 2, changes: [{ field: 'title', before: 'L1', after: 'L2' }] });
    await expect(t.api.local.diffVersion('posts', record.id, 2, { against: 'soon' as unknown as number })).rejects.toMatchObject({ status: 400 });
    const restored = await t.api.local.restoreVersion('posts', record.id, 1);
    expect(restored.title).toBe('L1');
    await t.api.local.updateGlobal('site', { name: 'Local' });
    const globals = await t.api.local.globalVersions('site');
    expect(globals.docs[0]).toMatchObject({ op: 'update', actor: { origin: 'local' } });
    const newest = globals.docs[0].version;
    expect((await t.api.local.globalVersion('site', newest)).doc).toMatchObject({ name: 'Local' });
    expect((await t.api.local.diffGlobalVersion('site', newest)).changes).toEqual([{ field: 'name', before: 'First', after: 'Local' }]);
    expect(await t.api.local.restoreGlobalVersion('site', 1)).toMatchObject({ name: 'First' });
    await expect(t.api.local.versions('plain', record.id)).rejects.toMatchObject({ status: 404 });
  });
});
