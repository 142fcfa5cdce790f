// The worked examples of docs/hooks.md, taken from the page itself so page and test cannot drift: every
// ```ts block that starts with `// hooks/<name>.ts` is type-checked against the package's types and run
// as the module it is; hooks/index.ts puts them into the example app's config, and each example is then
// exercised over HTTP against the test database.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import ts from 'typescript';
import * as contentRouterPackage from '../../lib';
import { type AfterChangeHook, type ContentConfig, type ContentRouter, contentRouter } from '../../lib';
import { asUser, createTestApp } from '../helpers/create-test-app';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';

// Plain CommonJS, as start.js requires it.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example app is plain CommonJS JavaScript, without typings
const { exampleConfig, demoHostAuth, DEMO_USERS } = require('../../example-app/app.js') as {
  exampleConfig(db: { connection: Connection }): ContentConfig;
  demoHostAuth: RequestHandler;
  DEMO_USERS: { alice: { id: string } };
};

const ROOT = resolve(__dirname, '../..');
const page = readFileSync(join(ROOT, 'docs/hooks.md'), 'utf8');

/** The page's files: its ```ts blocks whose first line names one (`// hooks/slug.ts`), by that name. */
const files = new Map([...page.matchAll(/```ts\n\/\/ (hooks\/[\w-]+\.ts)\n([^]*?)```/g)].map((m) => [m[1], m[2]]));

/** Compiler errors of the page's files, checked as files of this repo (`content-router` is lib/). */
function typeErrors(): string[] {
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, ROOT);
  const options = { ...parsed.options, noEmit: true, types: ['node'] };
  // Where the files would sit: beside the page, as docs/hooks/*.ts (nothing is written there).
  const virtual = new Map([...files].map(([name, text]) => [join(ROOT, 'docs', name), text]));
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  const folder = join(ROOT, 'docs', 'hooks');
  host.directoryExists = (dir) => dir === folder || (directoryExists?.(dir) ?? true);
  host.fileExists = (file) => virtual.has(file) || fileExists(file);
  host.readFile = (file) => virtual.get(file) ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined ? getSourceFile(file, language, ...rest) : ts.createSourceFile(file, text, language);
  };
  // The repo's ambient declarations (lib/types) too, as the project's own typecheck has them.
  const ambient = parsed.fileNames.filter((file) => file.endsWith('.d.ts'));
  const program = ts.createProgram({ rootNames: [...virtual.keys(), ...ambient], options, host });
  // The page's files only: the rest of the program is the project's own typecheck's business.
  const diagnostics = [...virtual.keys()].flatMap((file) => {
    const source = program.getSourceFile(file);
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  });
  return diagnostics.map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(ROOT.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

/** Runs a page file as the CommonJS module TypeScript makes of it; `content-router` is lib/, `./x` another page file. */
function loadFile(name: string, loaded = new Map<string, Record<string, unknown>>()): Record<string, unknown> {
  const known = loaded.get(name);
  if (known) return known;
  const source = files.get(name);
  if (source === undefined) throw new Error(`docs/hooks.md has no ${name}`);
  const exports: Record<string, unknown> = {};
  loaded.set(name, exports);
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
  const requireOf = (id: string) => {
    if (id === 'content-router') return contentRouterPackage;
    if (id.startsWith('./')) return loadFile(`hooks/${id.slice(2)}.ts`, loaded);
    throw new Error(`${name} imports ${id}: the examples use only content-router and each other`);
  };
  new Function('exports', 'require', js)(exports, requireOf);
  return exports;
}

const alice = ['X-Demo-User', 'alice'] as const;
const previousSecret = process.env.JWT_SECRET;
const logged: unknown[][] = [];
let connection: Connection;
let api: ContentRouter;
let app: Express;

beforeAll(async () => {
  process.env.JWT_SECRET = 'hooks-examples-test-secret-0123456789abcdef';
  connection = await openTestConnection();
  const { withHookExamples } = loadFile('hooks/index.ts') as { withHookExamples(config: ContentConfig): ContentConfig };
  // The example app as createExampleApp builds it (its host auth, the router at /api), with the page's
  // examples in its config; a logger that keeps what a failed afterChange would only log.
  const quiet = () => undefined;
  api = contentRouter({ ...withHookExamples(exampleConfig({ connection })), logger: { error: (...args: unknown[]) => logged.push(args), warn: quiet, info: quiet } });
  app = express();
  app.use(demoHostAuth);
  app.use('/api', api);
  await api.ready;
});
afterAll(async () => {
  await api?.close();
  await closeTestConnection(connection);
  process.env.JWT_SECRET = previousSecret;
});
afterEach(() => {
  // Nothing failed quietly (an audit entry that could not be written is only logged).
  expect(logged.splice(0)).toEqual([]);
});

/** A post created by the demo admin over HTTP. */
async function createPost(body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }> {
  const created = await request(app).post('/api/posts').set(...alice).send(body);
  expect(created.status).toBe(201);
  return created.body;
}

it('has the files the page promises, and they compile against the package types', () => {
  expect([...files.keys()].sort()).toEqual([
    'hooks/audit.ts',
    'hooks/editors-only.ts',
    'hooks/index.ts',
    'hooks/keep-published.ts',
    'hooks/reading-time.ts',
    'hooks/slug.ts',
    'hooks/translation-draft.ts',
  ]);
  expect(typeErrors()).toEqual([]);
});

describe('a slug from the title (beforeValidate)', () => {
  it('fills in the slug of a new post, keeps one the client sends, and is validated like one it sent', async () => {
    const post = await createPost({ title: 'Hello, Hooks!', body: 'Three words here.' });
    expect(post).toMatchObject({ title: 'Hello, Hooks!', slug: 'hello-hooks' });
    const again = await request(app).post('/api/posts').set(...alice).send({ title: 'Hello, hooks' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'unique_conflict', errors: [{ field: 'slug', code: 'unique' }] });
    expect(await createPost({ title: 'Hello, hooks', slug: 'hello-hooks-again' })).toMatchObject({ slug: 'hello-hooks-again' });
    // Renaming keeps the slug (links stay valid).
    const renamed = await request(app).patch(`/api/posts/${post.id}`).set(...alice).send({ title: 'Goodbye' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ title: 'Goodbye', slug: 'hello-hooks' });
  });

  it('leaves a title that is no string to validation: a 400 naming the title, nothing written', async () => {
    const before = await connection.collection('posts').countDocuments();
    const bad = await request(app).post('/api/posts').set(...alice).send({ title: 42 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'title' })]);
    expect(await connection.collection('posts').countDocuments()).toBe(before);
  });
});

describe('an audit trail (afterChange through api)', () => {
  const entriesOf = async (id: string) => (await api.local.find('activity', { where: { target: { eq: `posts/${id}` } }, sort: 'createdAt' })).docs;

  it('records every write of a post, as the caller, in a collection nobody writes over the API', async () => {
    const post = await createPost({ title: 'Audited', body: 'Some words.' });
    expect(await entriesOf(post.id)).toEqual([expect.objectContaining({ action: 'create', changed: ['title', 'body', 'slug'], by: DEMO_USERS.alice.id })]);
    await request(app).patch(`/api/posts/${post.id}`).set(...alice).send({ status: 'published' }).expect(200);
    expect((await entriesOf(post.id)).map((e) => [e.action, e.changed])).toEqual([['create', ['title', 'body', 'slug']], ['update', ['status']]]);
    // Admins read the trail; nobody writes it over the API; anonymous callers do not see it.
    const trail = await request(app).get(`/api/activity?where[target][eq]=posts/${post.id}`).set(...alice);
    expect(trail.status).toBe(200);
    expect(trail.body.data).toHaveLength(2);
    expect((await request(app).get('/api/activity')).status).toBe(401);
    expect((await request(app).post('/api/activity').set(...alice).send({ action: 'create', target: 'forged' })).status).toBe(403);
  });

  it('leaves no entry for server code that says so in the context', async () => {
    const post = await createPost({ title: 'Maintained' });
    await api.local.update('posts', post.id, { views: 0 }, { context: { skipAudit: true } });
    expect((await entriesOf(post.id)).map((e) => e.action)).toEqual(['create']);
  });
});

describe('a computed field (afterRead)', () => {
  it('adds readingTime to every answer without storing it, and leaves a record without its body alone', async () => {
    const post = await createPost({ title: 'Long read', body: 'word '.repeat(450) });
    expect(post.readingTime).toBe(3);
    const got = await request(app).get(`/api/posts/${post.id}`);
    expect(got.body.readingTime).toBe(3);
    const listed = await request(app).get(`/api/posts?where[id][eq]=${post.id}`);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: post.id, readingTime: 3 })]);
    const titleOnly = await request(app).get(`/api/posts/${post.id}?fields=title`);
    expect(titleOnly.body).toEqual({ id: post.id, title: 'Long read' });
    const stored = await connection.collection('posts').findOne({ title: 'Long read' });
    expect(stored).not.toHaveProperty('readingTime');
  });
});

describe('a veto (beforeDelete)', () => {
  it('refuses to delete a published post, softly or for good, with its own 409; a draft deletes', async () => {
    const post = await createPost({ title: 'Live and kept', status: 'published' });
    for (const path of [`/api/posts/${post.id}`, `/api/posts/${post.id}?permanent=true`]) {
      const refused = await request(app).delete(path).set(...alice);
      expect(refused.status).toBe(409);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toEqual({
        type: 'urn:content-router:problem:post_published',
        title: 'Conflict',
        status: 409,
        detail: 'A published post cannot be deleted: set its status to draft first.',
        code: 'post_published',
      });
    }
    expect((await connection.collection('posts').findOne({ title: 'Live and kept' }))?.deletedAt ?? null).toBeNull();
    await request(app).patch(`/api/posts/${post.id}`).set(...alice).send({ status: 'draft' }).expect(200);
    const deleted = await request(app).delete(`/api/posts/${post.id}`).set(...alice);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });
  });
});

describe('an editor-only field (field access)', () => {
  it('shows notes to editors only, in gets, lists and cached answers alike', async () => {
    const post = await createPost({ title: 'With notes', notes: 'for editors' });
    expect(post.notes).toBe('for editors');
    const list = `/api/posts?where[id][eq]=${post.id}`;
    const anonymous = await request(app).get(list);
    expect(anonymous.body.data).toHaveLength(1);
    expect(anonymous.body.data[0]).not.toHaveProperty('notes');
    expect((await request(app).get(list)).headers['x-cache']).toBe('HIT');
    // The cache keeps callers who may read different fields apart.
    const asAlice = await request(app).get(list).set(...alice);
    expect(asAlice.body.data[0].notes).toBe('for editors');
    expect((await request(app).get(`/api/posts/${post.id}`)).body).not.toHaveProperty('notes');
    expect((await request(app).get(`/api/posts/${post.id}`).set(...alice)).body.notes).toBe('for editors');
  });

  it('answers a query naming notes exactly as one naming a field that does not exist', async () => {
    for (const query of ['where[notes][exists]=true', 'sort=notes', 'fields=title,notes', 'filter=notes:x']) {
      const named = await request(app).get(`/api/posts?${query}`);
      const unknown = await request(app).get(`/api/posts?${query.replace('notes', 'nosuch')}`);
      expect(named.status).toBe(400);
      expect(JSON.stringify(named.body).replaceAll('notes', 'nosuch')).toBe(JSON.stringify(unknown.body));
    }
    const asAlice = await request(app).get('/api/posts?where[notes][exists]=true').set(...alice);
    expect(asAlice.status).toBe(200);
  });

  it('refuses a body that sets notes from anyone else with a 403 naming the field, and writes nothing', async () => {
    const registered = await request(app).post('/api/users/register').send({ email: 'writer@example.com', password: 'a long passphrase', name: 'Writer' });
    expect(registered.status).toBe(201);
    const bearer = ['Authorization', `Bearer ${registered.body.accessToken}`] as const;
    const owner = registered.body.user.id;
    const refused = await request(app).post('/api/posts').set(...bearer).send({ title: 'Sneaky', owner, notes: 'mine' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden_field', errors: [{ field: 'notes', code: 'forbidden_field' }] });
    expect(await connection.collection('posts').countDocuments({ title: 'Sneaky' })).toBe(0);
    const own = await request(app).post('/api/posts').set(...bearer).send({ title: 'Plain', owner });
    expect(own.status).toBe(201);
    expect(own.body).not.toHaveProperty('notes');
  });
});

describe('a write from a hook into its own collection (the context guard)', () => {
  it('copies each new post once, the copy running the hook without copying again, in a batch too', async () => {
    const { translationDraft } = loadFile('hooks/translation-draft.ts') as { translationDraft: AfterChangeHook };
    const test = await createTestApp({
      collections: [{ slug: 'posts', fields: { title: { type: 'text', required: true }, status: { type: 'select', options: ['draft', 'published'] } }, hooks: { afterChange: [translationDraft] } }],
    });
    try {
      const editor = asUser({ id: '65a1b2c3d4e5f60718293a4b' });
      await request(test.app).post('/api/posts').set(...editor).send({ title: 'One' }).expect(201);
      await request(test.app).post('/api/posts').set(...editor).send({ data: [{ title: 'Two' }, { title: 'Three' }] }).expect(201);
      const titles = (await test.connection.collection('posts').find().toArray()).map((row) => row.title).sort();
      expect(titles).toEqual(['One', 'Three', 'Two', '[fr] One', '[fr] Three', '[fr] Two']);
    } finally {
      await test.close();
    }
  });
});
