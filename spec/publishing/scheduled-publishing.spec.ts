// Scheduled publish and unpublish, run by the router itself: stored, claimed with a lease so several
// routers on one database run each action exactly once, on the router's clock (specs move a test clock and
// call api.schedules.runDue(); the poll timer is real), as the user who scheduled it with access asked
// again, guarded by an optional ifMatch, every status kept. Bad input is a 400 problem.
import request from 'supertest';
import type { AccessArgs } from '../../lib/config/types';
import { create } from '../../lib/operations/create';
import { update } from '../../lib/operations/update';
import { representationTag } from '../../lib/operations/precondition';
import { presentFor } from '../../lib/operations/present-records';
import type { CollectionRuntime, Runtime, StoredChange } from '../../lib/operations/runtime';
import { type TestApp, asUser, createTestApp, type TestConfig } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { createTestClock } from '../helpers/test-clock';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';
import { withRuntime } from './router-runtime';

jest.setTimeout(30_000);

const editor = { id: 'e1', role: 'editor' };
/** Who may publish: editors, unless revoked meanwhile. */
const revoked = new Set<string>();
const canPublish = ({ user }: AccessArgs) => user?.role === 'editor' && !revoked.has(user.id);
const clock = createTestClock();
const MINUTE = 60_000;

function config(afterChange: string[] = []): TestConfig {
  return {
    clock,
    collections: [
      {
        slug: 'articles',
        versions: { drafts: true },
        access: { read: () => true, create: canPublish, update: canPublish, publish: canPublish },
        fields: { title: { type: 'text', required: true } },
        hooks: { afterChange: [({ doc }) => void afterChange.push(String(doc.title))] },
      },
      { slug: 'plain', access: { read: () => true }, fields: { title: { type: 'text' } } },
    ],
    globals: [{ slug: 'site', versions: { drafts: true }, access: { read: () => true, update: () => true, publish: canPublish }, fields: { name: { type: 'text' } } }],
  };
}

describe('scheduled publishing', () => {
  let t: TestApp;
  let runtime: Runtime;
  let articles: CollectionRuntime;
  const afterChange: string[] = [];
  const origins: string[] = [];

  beforeAll(async () => {
    ({ built: t, runtime } = await withRuntime(() => createTestApp(config(afterChange))));
    articles = runtime.collections.get('articles')!;
    runtime.hooks.changeCommitted.push((change: StoredChange) => void (change.collection === articles && origins.push(change.origin)));
  });
  afterAll(() => t.close());
  beforeEach(() => {
    afterChange.length = 0;
    origins.length = 0;
    revoked.clear();
  });

  async function draft(title: string): Promise<string> {
    const record = await create({ runtime, collection: articles.drafts!, user: null, overrideAccess: true, data: { title } });
    return record.id as string;
  }
  const inMinutes = (n: number) => new Date(clock.now().getTime() + n * MINUTE).toISOString();
  const schedule = (id: string, body: unknown) => request(t.app).post(`/api/articles/${id}/schedule`).set(...asUser(editor)).send(body as object);

  it('schedules a publish (201, pending), lists it, and runs it once due, as a create on the bus with origin schedule', async () => {
    const id = await draft('Later');
    const at = inMinutes(10);
    const res = await schedule(id, { action: 'publish', at }).expect(201);
    expect(res.body).toMatchObject({ id: expect.any(String), action: 'publish', at, status: 'pending' });
    const listed = await request(t.app).get(`/api/articles/${id}/schedule`).set(...asUser(editor)).expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: res.body.id, status: 'pending' })]);
    expect(await t.api.schedules.runDue()).toBe(0);
    await request(t.app).get(`/api/articles/${id}`).expect(404);
    clock.advance(11 * MINUTE);
    // (The poll timer may have run it first: runDue waits for a run in flight.)
    await t.api.schedules.runDue();
    await request(t.app).get(`/api/articles/${id}`).expect(200);
    expect(origins).toContain('schedule');
    const after = await request(t.app).get(`/api/articles/${id}/schedule`).set(...asUser(editor)).expect(200);
    expect(after.body.data[0]).toMatchObject({ status: 'done', finishedAt: expect.any(String) });
    expect(await t.api.schedules.runDue()).toBe(0);
  });

  it('runs a due action on its own, within seconds, from the poll timer', async () => {
    const id = await draft('By the timer');
    await schedule(id, { action: 'publish', at: inMinutes(1) }).expect(201);
    clock.advance(2 * MINUTE);
    await until(async () => (await articles.model.exists({ _id: id })) !== null, 10_000, 'the timer published it');
  });

  it('an unpublish runs too: the published record goes, the working copy stays', async () => {
    const id = await draft('Withdrawn');
    await t.api.local.publish('articles', id);
    await schedule(id, { action: 'unpublish', at: inMinutes(5) }).expect(201);
    clock.advance(6 * MINUTE);
    await t.api.schedules.runDue();
    expect(await articles.model.exists({ _id: id })).toBeNull();
    expect(await articles.drafts!.model.exists({ _id: id })).toBeTruthy();
  });

  it('an ifMatch the working copy no longer matches fails the action (precondition_failed) and publishes nothing', async () => {
    const id = await draft('Guarded');
    const row = await articles.drafts!.model.findById(id).lean();
    const [shown] = await presentFor({ runtime, collection: articles.drafts!, user: editor }, [row as never]);
    await schedule(id, { action: 'publish', at: inMinutes(5), ifMatch: representationTag(shown) }).expect(201);
    await update({ runtime, collection: articles.drafts!, user: null, overrideAccess: true, id, data: { title: 'Guarded, edited' } });
    clock.advance(6 * MINUTE);
    await t.api.schedules.runDue();
    expect(await articles.model.exists({ _id: id })).toBeNull();
    const listed = await request(t.app).get(`/api/articles/${id}/schedule`).set(...asUser(editor)).expect(200);
    expect(listed.body.data[0]).toMatchObject({ status: 'failed', reason: 'precondition_failed' });
  });

  it('asks access again at run time, as the user who scheduled it', async () => {
    const id = await draft('Revoked');
    await schedule(id, { action: 'publish', at: inMinutes(5) }).expect(201);
    revoked.add(editor.id);
    clock.advance(6 * MINUTE);
    await t.api.schedules.runDue();
    expect(await articles.model.exists({ _id: id })).toBeNull();
    revoked.clear();
    const listed = await request(t.app).get(`/api/articles/${id}/schedule`).set(...asUser(editor)).expect(200);
    expect(listed.body.data[0]).toMatchObject({ status: 'failed', reason: 'forbidden' });
  });

  it('cancels a pending action (then it never runs); a finished one is a 409, an unknown one a 404', async () => {
    const id = await draft('Cancelled');
    const { body } = await schedule(id, { action: 'publish', at: inMinutes(5) }).expect(201);
    const cancelled = await request(t.app).delete(`/api/articles/${id}/schedule/${body.id}`).set(...asUser(editor)).expect(200);
    expect(cancelled.body).toMatchObject({ id: body.id, status: 'cancelled' });
    const again = await request(t.app).delete(`/api/articles/${id}/schedule/${body.id}`).set(...asUser(editor)).expect(409);
    expect(again.body.code).toBe('schedule_not_pending');
    await request(t.app).delete(`/api/articles/${id}/schedule/64b7f0f0f0f0f0f0f0f0f0f0`).set(...asUser(editor)).expect(404);
    await request(t.app).delete(`/api/articles/${id}/schedule/nope`).set(...asUser(editor)).expect(404);
    clock.advance(6 * MINUTE);
    await t.api.schedules.runDue();
    expect(await articles.model.exists({ _id: id })).toBeNull();
  });

  it('refuses bad input with a 400 problem naming the field, and needs the publish rule', async () => {
    const id = await draft('Bad input');
    const cases: Array<[unknown, string, string]> = [
      [{ action: 'publish', at: new Date(clock.now().getTime() - MINUTE).toISOString() }, 'at', 'in_the_past'],
      [{ action: 'publish', at: 'next tuesday' }, 'at', 'invalid_date'],
      [{ action: 'publish', at: '2031-02-30T10:00:00Z' }, 'at', 'invalid_date'],
      [{ action: 'archive', at: inMinutes(5) }, 'action', 'invalid_value'],
      [{ action: 'publish', at: inMinutes(5), when: 'now' }, 'when', 'unknown_field'],
      [{ at: inMinutes(5) }, 'action', 'required'],
      [{ action: 'publish', at: inMinutes(5), ifMatch: 'not-a-tag' }, 'ifMatch', 'invalid_value'],
    ];
    for (const [body, field, code] of cases) {
      const res = await schedule(id, body).expect(400);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      expect(res.body.errors).toContainEqual(expect.objectContaining({ field, code }));
    }
    await request(t.app).post(`/api/articles/${id}/schedule`).send({ action: 'publish', at: inMinutes(5) }).expect(401);
    await request(t.app).post(`/api/articles/${id}/schedule`).set(...asUser({ id: 'x', role: 'reader' })).send({ action: 'publish', at: inMinutes(5) }).expect(403);
    await request(t.app).get(`/api/articles/${id}/schedule`).expect(401);
    await schedule('64b7f0f0f0f0f0f0f0f0f0f0', { action: 'publish', at: inMinutes(5) }).expect(404);
    const list = await request(t.app).get(`/api/articles/${id}/schedule`).set(...asUser(editor)).expect(200);
    expect(list.body.data).toEqual([]);
  });

  it('a retried schedule request with its Idempotency-Key schedules the action once', async () => {
    const id = await draft('Retried');
    const body = { action: 'publish', at: inMinutes(30) };
    const first = await schedule(id, body).set('Idempotency-Key', `schedule-${id}`).expect(201);
    const again = await schedule(id, body).set('Idempotency-Key', `schedule-${id}`).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const list = await request(t.app).get(`/api/articles/${id}/schedule`).set(...asUser(editor)).expect(200);
    expect(list.body.data).toHaveLength(1);
  });

  it('a collection without drafts has no schedule routes (the paths stay free); the local API says drafts are off', async () => {
    await request(t.app).post('/api/plain/64b7f0f0f0f0f0f0f0f0f0f0/schedule').set(...asUser(editor)).send({ action: 'publish', at: inMinutes(5) }).expect(404);
    await request(t.app).get('/api/plain/64b7f0f0f0f0f0f0f0f0f0f0/schedule').set(...asUser(editor)).expect(404);
    const refused = t.api.local.schedule({ collection: 'plain', id: '64b7f0f0f0f0f0f0f0f0f0f0' }, { action: 'publish', at: inMinutes(5) });
    await expect(refused).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/drafts are off/i) });
  });

  it('schedules a global, and through the local API', async () => {
    const site = runtime.globals.get('site')!;
    await site.drafts!.model.create({ _id: 'site', name: 'Scheduled name' });
    const res = await request(t.app).post('/api/globals/site/schedule').set(...asUser(editor)).send({ action: 'publish', at: inMinutes(5) }).expect(201);
    expect(res.body).toMatchObject({ global: 'site', record: 'site', status: 'pending' });
    const id = await draft('Local schedule');
    const local = await t.api.local.schedule({ collection: 'articles', id }, { action: 'publish', at: new Date(clock.now().getTime() + 5 * MINUTE) });
    expect(local).toMatchObject({ collection: 'articles', record: id, status: 'pending' });
    expect(await t.api.local.schedules({ collection: 'articles', id })).toEqual([expect.objectContaining({ id: local.id })]);
    await expect(t.api.local.schedule({ collection: 'articles', id }, { action: 'publish', at: new Date(0) })).rejects.toMatchObject({ status: 400 });
    clock.advance(6 * MINUTE);
    await t.api.schedules.runDue();
    expect((await request(t.app).get('/api/globals/site').expect(200)).body).toMatchObject({ name: 'Scheduled name' });
    expect(await articles.model.exists({ _id: id })).toBeTruthy();
    const cancelled = await t.api.local.cancelSchedule({ global: 'site' }, res.body.id as string).catch((error: unknown) => error);
    expect(cancelled).toMatchObject({ status: 409 });
  });
});

describe('scheduled publishing with two routers on one database', () => {
  let first: TestApp;
  let second: TestApp;
  const afterChange: string[] = [];

  beforeAll(async () => {
    first = await createTestApp(config(afterChange));
    const connection = await openTestConnection(first.connection.name);
    second = await createTestApp(config(afterChange), { connection });
  });
  afterAll(async () => {
    await second.close();
    await closeTestConnection(second.connection);
    await first.close();
  });

  it('runs each due action exactly once', async () => {
    // Working copies made directly, as a draft save would leave them.
    const drafts = first.connection.collection('articles_drafts');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(String((await drafts.insertOne({ title: `Both ${i}`, _rev: 1, createdAt: new Date(), updatedAt: new Date() })).insertedId));
    afterChange.length = 0;
    for (const id of ids) await first.api.local.schedule({ collection: 'articles', id }, { action: 'publish', at: new Date(clock.now().getTime() + MINUTE) });
    clock.advance(2 * MINUTE);
    // Both routers run at once (their poll timers may join in): each action runs on one of them only.
    await Promise.all([first.api.schedules.runDue(), second.api.schedules.runDue()]);
    expect(afterChange.sort()).toEqual(ids.map((_, i) => `Both ${i}`).sort());
    expect(await first.connection.collection('articles').countDocuments()).toBe(6);
    const statuses = await first.connection.collection('content-router.schedules').distinct('status');
    expect(statuses).toEqual(['done']);
  });
});
