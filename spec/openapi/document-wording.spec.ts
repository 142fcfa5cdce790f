// What the document says in words: summaries that read naturally (a verb, then the record as English names
// it), parameter descriptions that say what the router does (search is a substring match; the bulk writes'
// filter repeats like the list's), and examples built from the collection's own fields, never from fields
// it does not have.
import request from 'supertest';
import { FAST_HASH, SECRET } from '../auth/auth-test-app';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

type Parameter = { name: string; in: string; description: string; schema: Record<string, unknown>; style?: string; explode?: boolean };
type Operation = { operationId: string; summary: string; parameters?: Parameter[] };

let t: TestApp;
let operations: Map<string, Operation>;

beforeAll(async () => {
  t = await createTestApp({
    auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
    email: { send: () => undefined },
    uploads: {},
    realtime: true,
    collections: [
      { slug: 'users', auth: true, fields: {} },
      { slug: 'staff', softDelete: true, fields: { name: { type: 'text' }, grade: { type: 'number' } } },
      { slug: 'categories', fields: { label: { type: 'text' }, parent: { type: 'relationship', relationTo: 'categories' } } },
      { slug: 'blog-posts', fields: { headline: { type: 'text' }, category: { type: 'relationship', relationTo: 'categories' }, stars: { type: 'number' } } },
      { slug: 'flags', fields: { on: { type: 'boolean' } } },
    ],
  });
  const doc = (await request(t.app).get('/api/docs/openapi.json').expect(200)).body as { paths: Record<string, Record<string, Operation>> };
  operations = new Map(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => [op.operationId, op] as const)));
});
afterAll(() => t.close());

const parameter = (operationId: string, name: string) => operations.get(operationId)!.parameters!.find((p) => p.name === name)!;

describe('summaries', () => {
  it('name one record and many as English does, slug words apart, "record" where the slug has no plural', () => {
    const summaries = Object.fromEntries([...operations].map(([id, op]) => [id, op.summary]));
    expect(summaries).toMatchObject({
      'staff.list': 'List staff records',
      'staff.count': 'Count staff records',
      'staff.get': 'Get a staff record',
      'staff.create': 'Create a staff record, or a batch of them',
      'staff.update': 'Update a staff record',
      'staff.delete': 'Delete a staff record (soft: permanent=true removes it)',
      'staff.restore': 'Restore a deleted staff record',
      'staff.updateMany': 'Update every staff record the where matches',
      'categories.get': 'Get a category',
      'blog-posts.create': 'Create a blog post, or a batch of them',
      'blog-posts.deleteMany': 'Delete every blog post the where matches',
      'blog-posts.list': 'List blog posts',
    });
  });

  it('every summary starts with a verb, and none says "one of"', () => {
    for (const [id, op] of operations) {
      expect({ id, summary: op.summary }).toEqual({ id, summary: expect.stringMatching(/^(List|Count|Get|Create|Update|Delete|Restore|Show|Open|Stream|Upload|Download|Send|Revoke|Set|Log|Exchange|Ask|Verify|[A-Z]+ \/)\b/) });
      expect(op.summary).not.toMatch(/one of/);
    }
  });
});

describe('parameters', () => {
  it("a bulk write's filter repeats like the list's (an array, form style, exploded)", () => {
    for (const id of ['staff.updateMany', 'staff.deleteMany']) {
      expect(parameter(id, 'filter')).toMatchObject({ schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true });
    }
    expect(parameter('staff.list', 'filter')).toMatchObject({ schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true });
  });

  it('search is described as the case-insensitive substring match it is, naming the fields it looks in', () => {
    for (const id of ['staff.list', 'staff.count', 'staff.updateMany', 'staff.deleteMany']) {
      const { description } = parameter(id, 'search');
      expect({ id, description }).toEqual({ id, description: expect.stringMatching(/case-insensitive substring/i) });
      expect(description).not.toMatch(/full-text/i);
      expect(description).toContain('`name`');
    }
  });

  it("examples name only the collection's own fields", () => {
    const fieldsOf: Record<string, string[]> = {
      staff: ['name', 'grade', 'id', 'createdAt', 'updatedAt', 'deletedAt'],
      categories: ['label', 'parent', 'id', 'createdAt', 'updatedAt'],
      'blog-posts': ['headline', 'category', 'stars', 'id', 'createdAt', 'updatedAt'],
      flags: ['on', 'id', 'createdAt', 'updatedAt'],
    };
    for (const [slug, fields] of Object.entries(fieldsOf)) {
      for (const [id, name] of [[`${slug}.list`, 'where'], [`${slug}.count`, 'where'], [`${slug}.list`, 'include'], [`${slug}.get`, 'include'], [`${slug}.list`, 'filter'], [`${slug}.updateMany`, 'where']]) {
        const { description } = parameter(id, name);
        // Field names in the examples: JSON keys, bracket segments, `field:value` and include paths.
        const named = [
          ...[...description.matchAll(/"(\w+)":\{/g)].map((m) => m[1]),
          ...[...description.matchAll(/where\[(\w+)\]/g)].map((m) => m[1]),
          ...[...description.matchAll(/`filter=(\w+):/g)].map((m) => m[1]),
          ...[...description.matchAll(/`include=([\w.,]+)`/g)].flatMap((m) => m[1].split(/[.,]/)),
        ];
        for (const field of named) {
          const known = field === 'category' || field === 'parent' ? [...fields, 'parent'] : fields;
          expect({ id, name, field, known: known.includes(field) }).toEqual({ id, name, field, known: true });
        }
      }
    }
    expect(parameter('blog-posts.list', 'include').description).toContain('`include=category,category.parent`');
    expect(parameter('staff.list', 'include').description).not.toMatch(/author|avatar/);
    expect(parameter('staff.list', 'where').description).not.toMatch(/views|title/);
  });
});
