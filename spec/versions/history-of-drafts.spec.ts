// The history of a drafts collection and retention: draft saves (made through the working copies' runtime,
// as the drafts routes make them) share one history with the published record; saves by one caller within
// `coalesce` replace that version (the test clock moves time); a restore writes the working copy unless
// ?publish=true; retention keeps the newest `max`, drops what is older than `maxAge`, and never the newest
// version nor the newest published one.
import request from 'supertest';
import * as featureModule from '../../lib/http/feature';
import { create, update } from '../../lib/operations';
import type { Runtime } from '../../lib/operations/runtime';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { createTestClock } from '../helpers/test-clock';

const editor = asUser({ id: 'e1', role: 'editor' });
const other = asUser({ id: 'e2', role: 'editor' });
const writer = asUser({ id: 'w1', role: 'writer' });

describe('versions: drafts, coalescing and retention', () => {
  let t: TestApp;
  let runtime: Runtime;
  const clock = createTestClock();

  beforeAll(async () => {
    // The router's runtime, as the drafts routes hold it: its working copies' runtime is what they write through.
    const addHooks = jest.spyOn(featureModule, 'addHooks');
    t = await createTestApp({
      clock,
      collections: [
        {
          slug: 'articles',
          versions: { drafts: true, coalesce: '5m', max: 3 },
          access: { publish: ({ user }) => user?.role === 'editor' },
          fields: { title: { type: 'text', required: true }, body: { type: 'text' } },
        },
        { slug: 'small', versions: { max: 2 }, fields: { title: { type: 'text' } } },
        { slug: 'aged', versions: { maxAge: '1d', max: 0 }, fields: { title: { type: 'text' } } },
      ],
    });
    runtime = addHooks.mock.calls[0][0];
    addHooks.mockRestore();
  });
  afterAll(() => t.close());

  const articles = () => {
    const collection = runtime.collections.get('articles');
    if (!collection?.drafts) throw new Error('articles keeps no working copies');
    return { collection, drafts: collection.drafts };
  };
  const saveDraft = (id: string, data: Record<string, unknown>, user = { id: 'e1', role: 'editor' }) =>
    update({ runtime, collection: articles().drafts, user, id, data });
  const history = async (slug: string, id: string) =>
    (await request(t.app).get(`/api/${slug}/${id}/versions?perPage=50`).set(...editor).expect(200)).body.data as { version: number; op: string; changedFields: string[]; actor: { id?: string } }[];

  /** A published article with its working copy (made here as the drafts slice's sync makes it). */
  const publishedWithDraft = async (title: string) => {
    const { body } = await request(t.app).post('/api/articles').set(...editor).send({ title }).expect(201);
    // Once the working copies follow their published records by themselves, the copy is there already.
    if (!(await articles().drafts.model.exists({ _id: body.id }))) {
      await create({ runtime, collection: articles().drafts, user: null, overrideAccess: true, trusted: true, id: body.id, data: { title } });
    }
    return body.id as string;
  };

  it('records draft saves as op draft in the record history, coalescing one caller’s saves within coalesce', async () => {
    const id = await publishedWithDraft('a1');
    const before = await history('articles', id);
    clock.advance(60_000);
    await saveDraft(id, { title: 'a2' });
    clock.advance(60_000);
    await saveDraft(id, { body: 'text' });
    clock.advance(4 * 60_000);
    await saveDraft(id, { title: 'a3' });
    let versions = await history('articles', id);
    // The editor's three saves are one version, after what the record had.
    expect(versions).toHaveLength(before.length + 1);
    expect(versions[0]).toMatchObject({ version: before[0].version + 1, op: 'draft', actor: { id: 'e1' } });
    expect(versions.at(-1)).toMatchObject({ version: 1, op: 'create' });
    expect(versions[0].changedFields.sort()).toEqual(['body', 'title']);
    const newest = (await request(t.app).get(`/api/articles/${id}/versions/${versions[0].version}`).set(...editor).expect(200)).body;
    expect(newest.doc).toMatchObject({ title: 'a3', body: 'text' });
    // Past coalesce: a new version; another caller: a new version.
    clock.advance(5 * 60_000 + 1);
    await saveDraft(id, { title: 'a4' });
    await saveDraft(id, { title: 'a5' }, { id: 'e2', role: 'editor' });
    const coalesced = versions[0].version;
    versions = await history('articles', id);
    expect(versions.slice(0, 2).map((v) => [v.version, v.op, v.actor.id])).toEqual([
      [coalesced + 2, 'draft', 'e2'],
      [coalesced + 1, 'draft', 'e1'],
    ]);
    // A write of the published record is no draft save: never coalesced.
    await request(t.app).patch(`/api/articles/${id}`).set(...other).send({ body: 'published' }).expect(200);
    expect((await history('articles', id))[0]).toMatchObject({ op: 'update' });
  });

  it('restores into the working copy, or with ?publish=true into the published record, and diffs against the draft', async () => {
    const id = await publishedWithDraft('w1');
    await saveDraft(id, { title: 'w2' });
    const drift = (await request(t.app).get(`/api/articles/${id}/versions/1/diff?against=draft`).set(...editor).expect(200)).body;
    expect(drift).toEqual({ from: 'draft', to: 1, changes: [{ field: 'title', before: 'w2', after: 'w1' }] });
    clock.advance(10 * 60_000);
    await request(t.app).post(`/api/articles/${id}/versions/1/restore`).set(...editor).expect(200);
    const { drafts, collection } = articles();
    expect(await drafts.model.findById(id).lean()).toMatchObject({ title: 'w1' });
    expect((await request(t.app).get(`/api/articles/${id}`).set(...editor).expect(200)).body.title).toBe('w1');
    // The working copy's restore is the history's newest: a restore, not a draft save.
    expect((await history('articles', id))[0]).toMatchObject({ op: 'restore' });
    await saveDraft(id, { title: 'w3' });
    await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ title: 'live' }).expect(200);
    // The working copy's restore (max 3 may have removed the versions before it by now).
    const restore = (await history('articles', id)).find((v) => v.op === 'restore');
    // Writing the published record is publishing: a caller who may edit but not publish is refused.
    await request(t.app).post(`/api/articles/${id}/versions/${restore?.version}/restore?publish=true`).set(...writer).expect(403);
    await request(t.app).post(`/api/articles/${id}/versions/${restore?.version}/restore?publish=maybe`).set(...editor).expect(400);
    await request(t.app).post(`/api/articles/${id}/versions/${restore?.version}/restore?publish=true`).set(...editor).expect(200);
    expect(await collection.model.findById(id).lean()).toMatchObject({ title: 'w1' });
  });

  it('keeps the newest max versions per record, and the newest published one beside them', async () => {
    const { body } = await request(t.app).post('/api/small').set(...editor).send({ title: 's0' }).expect(201);
    for (let i = 1; i <= 4; i++) await request(t.app).patch(`/api/small/${body.id}`).set(...editor).send({ title: `s${i}` }).expect(200);
    await until(async () => (await history('small', body.id)).length === 2);
    expect((await history('small', body.id)).map((v) => v.version)).toEqual([5, 4]);

    const id = await publishedWithDraft('k1');
    for (let i = 2; i <= 5; i++) {
      clock.advance(6 * 60_000);
      await saveDraft(id, { title: `k${i}` });
    }
    // max 3: the three newest drafts, and version 1, the published state.
    await until(async () => (await history('articles', id)).length === 4);
    const kept = await history('articles', id);
    expect(kept.map((v) => v.op)).toEqual(['draft', 'draft', 'draft', 'create']);
    expect(kept[0].version - kept[2].version).toBe(2);
    expect(kept[3].version).toBe(1);
  });

  it('drops versions older than maxAge on the record’s next change, never the newest', async () => {
    const { body } = await request(t.app).post('/api/aged').set(...editor).send({ title: 'old' }).expect(201);
    await request(t.app).patch(`/api/aged/${body.id}`).set(...editor).send({ title: 'older' }).expect(200);
    clock.advance(2 * 86_400_000);
    await request(t.app).patch(`/api/aged/${body.id}`).set(...editor).send({ title: 'new' }).expect(200);
    await until(async () => (await history('aged', body.id)).length === 1);
    expect((await history('aged', body.id))[0]).toMatchObject({ version: 3 });
    clock.advance(2 * 86_400_000);
    const { body: lone } = await request(t.app).post('/api/aged').set(...editor).send({ title: 'alone' }).expect(201);
    await request(t.app).delete(`/api/aged/${lone.id}`).set(...editor).expect(200);
    clock.advance(2 * 86_400_000);
    await request(t.app).post(`/api/aged/${lone.id}/versions/1/restore`).set(...editor).expect(200);
    await until(async () => (await history('aged', lone.id)).length === 1);
    expect((await history('aged', lone.id))[0]).toMatchObject({ version: 3, op: 'restore' });
  });
});
