// The editorial workflow in the audit log, as an editor reads it: a publish is one `publish` entry with the
// status its route answered and the version it made; a create names the fields it set, not the stamps the
// router adds; scheduling is a `schedule` entry; and a write refused before its operation ran (an anonymous
// draft save, schedule or restore) is a refused entry of that write.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { createTestClock } from '../helpers/test-clock';
import type { AuditEntry } from '../../lib/audit/audit-entry';

const clock = createTestClock();
const editor = asUser({ id: 'e1', role: 'user' });
const signedIn = ({ user }: { user: unknown }) => user !== null;

let t: TestApp;
async function entries(): Promise<Array<Omit<AuditEntry, 'id'>>> {
  await t.api.audit?.find({ limit: 1 });
  return t.connection.collection('content-router.audit').find({}, { projection: { _id: 0 } }).sort({ _id: 1 }).toArray() as unknown as Promise<Array<Omit<AuditEntry, 'id'>>>;
}

beforeAll(async () => {
  t = await createTestApp({
    clock,
    collections: [{ slug: 'articles', versions: { drafts: true }, access: { read: () => true, create: signedIn, update: signedIn }, fields: { title: { type: 'text', required: true } } }],
    audit: { collections: '*' },
  });
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.api.audit?.find({ limit: 1 });
  await t.connection.collection('content-router.audit').deleteMany({});
});

async function draft(title: string): Promise<string> {
  const res = await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title }).expect(201);
  return res.body.id as string;
}

it('records a publish once, with the status its route answered and the version it made', async () => {
  const id = await draft('First');
  await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).expect(200);
  const published = (await entries()).filter((entry) => entry.action === 'publish');
  expect(published).toHaveLength(1);
  expect(published[0]).toMatchObject({ resource: { collection: 'articles', id }, outcome: { status: 200 }, version: expect.any(Number) });
});

it("names the fields a create set, never the router's own stamps", async () => {
  await draft('Stamped');
  const [created] = await entries();
  expect(created.action).toBe('draft');
  expect(created.changedFields).toEqual(['title']);
});

it('records scheduling a publish as a schedule entry', async () => {
  const id = await draft('Later');
  const at = new Date(clock.now().getTime() + 3_600_000).toISOString();
  await request(t.app).post(`/api/articles/${id}/schedule`).set(...editor).send({ action: 'publish', at }).expect(201);
  const scheduled = (await entries()).filter((entry) => entry.action === 'schedule');
  expect(scheduled).toEqual([expect.objectContaining({ resource: { collection: 'articles', id }, outcome: { status: 201 }, actor: expect.objectContaining({ id: 'e1' }) })]);
});

it('records an anonymous draft save, schedule and restore as refused writes (401)', async () => {
  const id = await draft('Guarded');
  await t.api.audit?.find({ limit: 1 });
  await t.connection.collection('content-router.audit').deleteMany({});
  await request(t.app).patch(`/api/articles/${id}/draft`).send({ title: 'x' }).expect(401);
  await request(t.app).post(`/api/articles/${id}/schedule`).send({ action: 'publish', at: new Date(clock.now().getTime() + 60_000).toISOString() }).expect(401);
  await request(t.app).post(`/api/articles/${id}/versions/1/restore`).expect(401);
  const refused = await entries();
  expect(refused.map((entry) => [entry.action, entry.outcome.status])).toEqual([
    ['draft', 401],
    ['schedule', 401],
    ['restore', 401],
  ]);
});

it("answers a malformed record id on a record's audit route with a 404, as the record's own routes do", async () => {
  const admin = asUser({ id: 'a1', role: 'admin' });
  const res = await request(t.app).get('/api/articles/not-an-id/audit').set(...admin);
  expect([res.status, res.type]).toEqual([404, 'application/problem+json']);
  const id = await draft('Cased');
  const upper = await request(t.app).get(`/api/articles/${id.toUpperCase()}/audit`).set(...admin).expect(200);
  expect(upper.body.data.map((entry: { action: string }) => entry.action)).toEqual(['draft']);
});
