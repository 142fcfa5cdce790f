// A collection's `collation`: its text sorts and compares by a locale's rules in every query the router makes
// of it (page and cursor lists, counts, filters, relation filters through it) and in every index it builds
// for it. The wire commands are observed through the driver's command monitoring on a real server; the
// order itself needs a server that implements collations (mongo-java-server accepts and ignores them).
import mongoose, { type Connection, type mongo } from 'mongoose';
import request from 'supertest';
import { asUser, createTestApp, type TestApp } from '../helpers/create-test-app';
import { capabilities, closeTestConnection, itIf, testDbUri, uniqueDbName } from '../helpers/test-db';

const reader = asUser({ id: '000000000000000000000001', role: 'admin' });
const NAMES = ['Zebra', 'Élection', 'apple', 'Eagle'];

let connection: Connection;
let t: TestApp;
const commands: mongo.CommandStartedEvent[] = [];

beforeAll(async () => {
  connection = await mongoose.createConnection(testDbUri(), { dbName: uniqueDbName(), monitorCommands: true }).asPromise();
  connection.getClient().on('commandStarted', (event) => commands.push(event));
  t = await createTestApp(
    {
      collections: [
        { slug: 'people', collation: { locale: 'fr' }, sortable: ['name'], fields: { name: { type: 'text' }, code: { type: 'text', unique: true } } },
        { slug: 'notes', fields: { title: { type: 'text' }, person: { type: 'relationship', relationTo: 'people' } } },
      ],
    },
    { connection },
  );
  const people = await t.api.local.createMany('people', NAMES.map((name) => ({ name, code: name.toLowerCase() })));
  await t.api.local.create('notes', { title: 'about the election', person: people[1].id });
});

afterAll(async () => {
  await t.close();
  await closeTestConnection(connection);
});

/** The commands sent to `collection` while `run` ran. */
async function commandsOf(collection: string, run: () => Promise<unknown>): Promise<mongo.Document[]> {
  const from = commands.length;
  await run();
  return commands.slice(from).map((event) => event.command).filter((command) => command[event(command)] === collection);
}

/** The command's name: its first key (`find`, `aggregate`, ...), whose value is the collection. */
function event(command: mongo.Document): string {
  return Object.keys(command)[0];
}

describe('every query of a collection with a collation carries it', () => {
  it('a sorted page and its total', async () => {
    const sent = await commandsOf('people', () => request(t.app).get('/api/people?sort=name&where[name][gte]=A').set(...reader).expect(200));
    expect(sent.map(event).sort()).toEqual(['aggregate', 'find']);
    for (const command of sent) expect(command.collation).toEqual({ locale: 'fr' });
  });

  it('a cursor page, whose keyset bounds compare under the same collation', async () => {
    const first = await request(t.app).get('/api/people?sort=name&limit=2&cursor=').set(...reader).expect(200);
    const sent = await commandsOf('people', () =>
      request(t.app).get(`/api/people?sort=name&limit=2&cursor=${first.body.meta.nextCursor}`).set(...reader).expect(200),
    );
    expect(sent).toEqual([expect.objectContaining({ find: 'people', collation: { locale: 'fr' } })]);
  });

  it('a count', async () => {
    const sent = await commandsOf('people', () => request(t.app).get('/api/people/count?where[name][gt]=E').set(...reader).expect(200));
    expect(sent).toEqual([expect.objectContaining({ aggregate: 'people', collation: { locale: 'fr' } })]);
  });

  it('a relation filter through it, and only there', async () => {
    const from = commands.length;
    await request(t.app).get('/api/notes?where[person.name][eq]=Élection').set(...reader).expect(200);
    const sent = commands.slice(from).map((e) => e.command);
    expect(sent.filter((c) => c.find === 'people')).toEqual([expect.objectContaining({ collation: { locale: 'fr' } })]);
    const notes = sent.filter((c) => c.find === 'notes');
    expect(notes).toHaveLength(1);
    expect(notes[0].collation).toBeUndefined();
  });

  it('every index the router builds for it, unique ones included; none on a collection without one', async () => {
    const indexes = (await connection.collection('people').indexes()).filter((index) => index.name !== '_id_');
    expect(indexes.map((index) => index.name).sort()).toEqual(['code_1', 'createdAt_-1__id_-1', 'name_1__id_1']);
    for (const index of indexes) expect(index.collation).toMatchObject({ locale: 'fr' });
    for (const index of await connection.collection('notes').indexes()) expect(index.collation?.locale ?? 'simple').toBe('simple');
  });
});

const collating = 'the server ignores collations (mongo-java-server sorts by code point)';

describe('the order', () => {
  itIf(capabilities().collation, collating)('sorts names by the locale: Élection before Zebra', async () => {
    const res = await request(t.app).get('/api/people?sort=name').set(...reader).expect(200);
    expect(res.body.data.map((p: { name: string }) => p.name)).toEqual(['apple', 'Eagle', 'Élection', 'Zebra']);
    const back = await request(t.app).get('/api/people?sort=-name').set(...reader).expect(200);
    expect(back.body.data.map((p: { name: string }) => p.name)).toEqual(['Zebra', 'Élection', 'Eagle', 'apple']);
  });

  itIf(capabilities().collation, collating)('pages through them with a cursor in the same order, both ways', async () => {
    const seen: string[] = [];
    let cursor = '';
    let last: { body: { data: Array<{ name: string }>; meta: { nextCursor: string | null; prevCursor: string | null } } } | undefined;
    do {
      last = await request(t.app).get(`/api/people?sort=name&limit=1&cursor=${cursor}`).set(...reader).expect(200);
      seen.push(...last!.body.data.map((p) => p.name));
      cursor = last!.body.meta.nextCursor ?? '';
    } while (cursor);
    expect(seen).toEqual(['apple', 'Eagle', 'Élection', 'Zebra']);
    const before = await request(t.app).get(`/api/people?sort=name&limit=2&cursor=${last!.body.meta.prevCursor}`).set(...reader).expect(200);
    expect(before.body.data.map((p: { name: string }) => p.name)).toEqual(['Eagle', 'Élection']);
  });

  itIf(capabilities().collation, collating)('compares filters and counts by the locale too', async () => {
    const after = await request(t.app).get('/api/people?sort=name&where[name][gt]=Eagle').set(...reader).expect(200);
    expect(after.body.data.map((p: { name: string }) => p.name)).toEqual(['Élection', 'Zebra']);
    expect((await request(t.app).get('/api/people/count?where[name][gt]=Eagle').set(...reader).expect(200)).body).toEqual({ total: 2 });
  });
});
