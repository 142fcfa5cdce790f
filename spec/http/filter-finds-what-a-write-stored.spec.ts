// One cast per field type, end to end: what a write accepts and stores, a filter with the same value finds
// (where bracket form, where JSON, Form C filter, the local API, a custom endpoint's body); what a write
// refuses, every path refuses with the same code, as a 400.
import request from 'supertest';
import type { EndpointObject } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { USER_ID, expectOkList, expectQueryError, idsOf, qs, whereJson } from '../helpers/list-assertions';

const user = asUser({ id: USER_ID });
let t: TestApp;
let annId: string;

/** An endpoint whose body has an e-mail and a date: it answers what arrived and whom the local API finds by that address. */
const lookup: EndpointObject = {
  path: '/lookup',
  method: 'post',
  schema: {
    name: 'Lookup',
    body: { properties: { mail: { type: 'email' }, since: { type: 'date' } }, required: ['mail'] },
  },
  handler: async ({ body }) => {
    const { mail, since } = body as { mail: string; since?: Date };
    const found = await t.api.local.find('people', { where: { mail: { eq: mail } } });
    return { mail, since: since instanceof Date ? since.toISOString() : since ?? null, found: found.docs.map((doc) => doc.id) };
  },
};

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'people',
        fields: {
          name: { type: 'text' },
          mail: { type: 'email' },
          others: { type: 'array', of: 'email' },
          age: { type: 'number' },
          born: { type: 'date' },
        },
      },
    ],
    endpoints: [lookup],
  });
  const created = await request(t.app)
    .post('/api/people')
    .set(...user)
    .send({ name: 'Ann', mail: ' Ann@Example.COM ', others: [' Second@Example.COM'], age: 30, born: '1990-05-01' });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ mail: 'ann@example.com', others: ['second@example.com'] });
  annId = created.body.id as string;
  await request(t.app).post('/api/people').set(...user).send({ name: 'Bob', mail: 'bob@example.com', age: 40 }).expect(201);
});

afterAll(async () => {
  await t.close();
});

afterEach(() => expect(t.hostErrors).toEqual([]));

const list = (query: string) => request(t.app).get(`/api/people?${query}`).set(...user);

describe('an e-mail written one way is found with the same value', () => {
  it.each([
    ['where bracket eq', qs(['where[mail][eq]', ' Ann@Example.COM '])],
    ['where bracket bare value', qs(['where[mail]', 'ANN@example.com'])],
    ['where bracket in', qs(['where[mail][in]', 'ANN@EXAMPLE.COM,nobody@example.com'])],
    ['where JSON eq', whereJson({ mail: { eq: ' Ann@Example.COM ' } })],
    ['where JSON in', whereJson({ mail: { in: ['Ann@Example.COM'] } })],
    ['where JSON on a list of addresses', whereJson({ others: { contains: 'SECOND@example.com ' } })],
    ['Form C filter', qs(['filter', 'mail:Ann@Example.COM'])],
    ['Form C filter with spaces', qs(['filter', 'mail: ANN@EXAMPLE.COM '])],
  ])('%s', async (_name, query) => {
    const res = await list(query);
    expectOkList(res);
    expect(idsOf(res)).toEqual([annId]);
  });

  it('neq leaves out the same address however it is typed', async () => {
    const res = await list(qs(['where[mail][neq]', 'ANN@EXAMPLE.COM']));
    expectOkList(res);
    expect(idsOf(res)).not.toContain(annId);
  });

  it('like matches a fragment of an address, which is no address itself', async () => {
    const res = await list(qs(['where[mail][like]', '@EXAMPLE.com']));
    expectOkList(res);
    expect(idsOf(res).sort()).toHaveLength(2);
  });

  it('the local API finds and counts with the same value', async () => {
    const found = await t.api.local.find('people', { where: { mail: ' Ann@Example.COM ' } });
    expect(found.docs.map((doc) => doc.id)).toEqual([annId]);
    expect(await t.api.local.count('people', { filter: 'mail:ANN@example.com' })).toEqual({ total: 1 });
    expect(await t.api.local.count('people', { where: { mail: { in: ['ANN@EXAMPLE.COM'] } } })).toEqual({ total: 1 });
    const bulk = await t.api.local.updateMany('people', { mail: 'ANN@Example.com ' }, { name: 'Ann' }, { dryRun: true });
    expect(bulk.meta.matched).toBe(1);
  });

  it('a bulk PATCH by where selects with the same value', async () => {
    const res = await request(t.app)
      .patch(`/api/people?${qs(['where[mail][eq]', 'ANN@EXAMPLE.COM'])}`)
      .set(...user)
      .send({ age: 31 });
    expect(res.status).toBe(200);
    expect(res.body.data.map((record: { id: string }) => record.id)).toEqual([annId]);
  });

  it('a custom endpoint body casts an e-mail and a date as a write does', async () => {
    const res = await request(t.app).post('/api/lookup').send({ mail: ' Ann@Example.COM ', since: '2024-05-01T10:00:00+02:00' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mail: 'ann@example.com', since: '2024-05-01T08:00:00.000Z', found: [annId] });
  });
});

describe('what a write refuses, every path refuses with the same code', () => {
  it.each([
    ['an address that is not one', 'mail', 'not-an-email', 'invalid_email'],
    ['a day that does not exist', 'born', '2024-02-30', 'invalid_date'],
    ['a date in words', 'born', 'March 7 2020', 'invalid_date'],
    ['a number that is not one', 'age', 'abc', 'invalid_type'],
  ])('%s', async (_name, field, value, code) => {
    const written = await request(t.app).post('/api/people').set(...user).send({ [field]: value });
    expect(written.status).toBe(400);
    expect(written.body.errors).toEqual([expect.objectContaining({ field, code })]);

    expectQueryError(await list(qs([`where[${field}][eq]`, value])), `where.${field}.eq`, code);
    expectQueryError(await list(whereJson({ [field]: { in: [value] } })), `where.${field}.in.0`, code);
    expectQueryError(await list(qs(['filter', `${field}:${value}`])), `filter.${field}.eq`, code);
    await expect(t.api.local.find('people', { where: { [field]: value } })).rejects.toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ code })],
    });
  });

  it('a custom endpoint body refuses a bad e-mail and a bad date with the same codes', async () => {
    const res = await request(t.app).post('/api/lookup').send({ mail: 'not-an-email', since: '2024-02-30' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ field: 'mail', code: 'invalid_email' }),
      expect.objectContaining({ field: 'since', code: 'invalid_date' }),
    ]);
  });
});
