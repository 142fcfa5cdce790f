// The generated types of the content workflow: a versioned collection's (or global's) history types, with
// drafts its working copy with `_status`, and the shared helpers (who made a version, a scheduled action, a
// preview link): named by the documented rule, declared only where `versions` is on, and compiled with
// `tsc --strict` (a right use compiles, a wrong one does not).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import type { ContentConfig } from '../../lib';
import { TypeNameConflictError, generateTypes } from '../../lib/types-gen/generate-types';
import { generatedTypeNames } from '../../lib/schema/type-names';

const config: Pick<ContentConfig, 'collections' | 'globals'> = {
  collections: [
    { slug: 'users', auth: true, fields: {} },
    {
      slug: 'articles',
      versions: { drafts: true, max: 20 },
      fields: {
        title: { type: 'text', required: true },
        slug: { type: 'text', unique: true },
        body: { type: 'textarea' },
        author: { type: 'relationship', relationTo: 'users' },
        secret: { type: 'text', hidden: true },
      },
    },
    { slug: 'pages', versions: true, fields: { title: { type: 'text', required: true } } },
    { slug: 'notes', fields: { text: { type: 'text' } } },
  ],
  globals: [{ slug: 'site', versions: true, fields: { title: { type: 'text' } } }],
};

const output = generateTypes(config, { source: 'content.config.ts' });

function declaration(name: string): string {
  const match = new RegExp(`^export interface ${name} [^]*?\\n\\}\\n|^export type ${name}\\b.*\\n`, 'm').exec(output);
  if (!match) throw new Error(`no declaration ${name} in:\n${output}`);
  return match[0];
}
/** A declaration without its JSDoc lines. */
const bare = (name: string) => declaration(name).split('\n').filter((line) => !line.trim().startsWith('/**')).join('\n');

it('declares the history of versioned collections and globals, the working copy with drafts, and nothing for the others', () => {
  const names = [...output.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
  expect(names).toEqual([
    'User', 'UserCreate', 'UserUpdate',
    'Article', 'ArticleCreate', 'ArticleUpdate', 'ArticleDraft', 'ArticleVersionSummary', 'ArticleVersion', 'ArticleVersionDiff',
    'Page', 'PageCreate', 'PageUpdate', 'PageVersionSummary', 'PageVersion', 'PageVersionDiff',
    'Note', 'NoteCreate', 'NoteUpdate',
    'Site', 'SiteUpdate', 'SiteVersionSummary', 'SiteVersion', 'SiteVersionDiff',
    'VersionOp', 'VersionActor', 'DraftStatus', 'ScheduledAction', 'PreviewLink',
  ]);
  const plain = generateTypes({ collections: [{ slug: 'notes', fields: { text: { type: 'text' } } }] });
  expect(plain).not.toMatch(/Version|Draft|Scheduled|Preview/);
  // History without drafts: no working copy, no scheduling, no preview links.
  const history = generateTypes({ collections: [{ slug: 'pages', versions: true, fields: {} }] });
  expect(history).toContain('export interface PageVersion ');
  expect(history).not.toMatch(/Draft|ScheduledAction|PreviewLink/);
});

it('declares the working copy as the record with every field optional and nullable, plus _status', () => {
  expect(bare('ArticleDraft')).toBe(
    [
      'export interface ArticleDraft {',
      '  id: string;',
      '  title?: string | null;',
      '  slug?: string | null;',
      '  body?: string | null;',
      '  author?: string | User | null;',
      '  createdAt: string;',
      '  updatedAt: string;',
      '  _status: DraftStatus;',
      '}',
      '',
    ].join('\n'),
  );
  expect(declaration('DraftStatus')).toBe('export type DraftStatus = "draft" | "published" | "changed";\n');
});

it('declares a version as its summary plus the record as it was, and a diff keyed by the record fields', () => {
  expect(bare('ArticleVersionSummary')).toBe(
    ['export interface ArticleVersionSummary {', '  version: number;', '  op: VersionOp;', '  createdAt: string;', '  actor: VersionActor;', '  changedFields: string[];', '}', ''].join('\n'),
  );
  // With drafts a version may hold a working copy (fields unset until publish); without, the record.
  expect(declaration('ArticleVersion')).toBe("export interface ArticleVersion extends ArticleVersionSummary {\n  doc: Omit<ArticleDraft, '_status'>;\n}\n");
  expect(declaration('PageVersion')).toBe('export interface PageVersion extends PageVersionSummary {\n  doc: Page;\n}\n');
  expect(declaration('SiteVersion')).toContain('  doc: Site;');
  expect(declaration('VersionOp')).toBe('export type VersionOp = "create" | "update" | "delete" | "restore" | "publish" | "unpublish" | "draft";\n');
  expect(bare('VersionActor')).toBe(['export interface VersionActor {', '  id?: string;', '  collection?: string;', '  apiKeyId?: string;', '  origin: string;', '}', ''].join('\n'));
  expect(bare('ArticleVersionDiff')).toContain("  from: number | 'current' | 'draft' | null;\n  to: number | 'current' | 'draft' | null;\n");
});

it('declares scheduled actions and preview links once, for every drafts collection', () => {
  expect(bare('ScheduledAction')).toBe(
    ['export interface ScheduledAction {', '  id: string;', '  action: "publish" | "unpublish";', '  at: string;', '  status: "pending" | "done" | "failed" | "cancelled";', '  ifMatch?: string;', '  reason?: string | null;', '  detail?: string;', '  collection?: string;', '  global?: string;', '  record: string;', '  createdAt: string;', '  finishedAt?: string;', '}', ''].join('\n'),
  );
  expect(bare('PreviewLink')).toBe(['export interface PreviewLink {', '  token: string;', '  url: string;', '  expiresAt: string;', '}', ''].join('\n'));
});

it('refuses names the history would share, and tells the endpoints check which names it takes', () => {
  expect(() => generateTypes({ collections: [{ slug: 'articles', versions: { drafts: true }, fields: {} }, { slug: 'article-drafts', fields: {} }] })).toThrow(
    new TypeNameConflictError('ArticleDraft', 'collection "articles"', 'collection "article-drafts"'),
  );
  const taken = generatedTypeNames(config);
  expect(taken.get('ArticleDraft')).toBe('collection "articles"');
  expect(taken.get('SiteVersionDiff')).toBe('global "site"');
  expect(taken.get('PreviewLink')).toBe('a helper type');
  expect(taken.has('PageDraft')).toBe(false);
  expect(generatedTypeNames({ collections: [{ slug: 'notes', fields: {} }] }).has('VersionActor')).toBe(false);
});

// Loading the compiler takes seconds on a busy machine.
jest.setTimeout(30000);

describe('compiled with tsc --strict', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cr-workflow-types-'));
    writeFileSync(join(dir, 'content-types.ts'), output);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function compile(code: string): string[] {
    writeFileSync(join(dir, 'use.ts'), code);
    const program = ts.createProgram([join(dir, 'use.ts')], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, lib: ['lib.es2022.d.ts'], types: [], skipLibCheck: true });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }

  const header = "import type { ArticleDraft, ArticleVersion, ArticleVersionSummary, ArticleVersionDiff, PageVersion, SiteVersionDiff, ScheduledAction, PreviewLink } from './content-types';\n";
  const summary = "{ version: 2, op: 'draft' as const, createdAt: '', actor: { id: 'u', collection: 'users', origin: 'rest' }, changedFields: ['title'] }";

  it('accepts values of the right types', () => {
    const errors = compile(
      header +
        [
          "const draft: ArticleDraft = { id: '1', title: null, createdAt: '', updatedAt: '', _status: 'draft' };",
          `const item: ArticleVersionSummary = ${summary};`,
          `const version: ArticleVersion = { ...${summary}, doc: { id: '1', title: 'Half done', createdAt: '', updatedAt: '' } };`,
          `const page: PageVersion = { ...${summary}, op: 'publish', actor: { origin: 'schedule' }, doc: { id: '2', title: 'T', createdAt: '', updatedAt: '' } };`,
          "const diff: ArticleVersionDiff = { from: 1, to: 'draft', changes: [{ field: 'title', before: 'A', after: 'B' }, { field: 'body', before: null, after: 'x' }] };",
          "const siteDiff: SiteVersionDiff = { from: null, to: 1, changes: [{ field: 'title', before: null, after: 'Hi' }] };",
          "const scheduled: ScheduledAction = { id: 's', action: 'unpublish', at: '2030-01-01T00:00:00.000Z', status: 'pending', record: 'r', createdAt: '2029-12-31T00:00:00.000Z' };",
          "const link: PreviewLink = { token: 't', url: '/api/articles/1/draft?preview=t', expiresAt: '' };",
          'export { draft, item, version, page, diff, siteDiff, scheduled, link };',
        ].join('\n'),
    );
    expect(errors).toEqual([]);
  });

  it.each([
    ['a working copy without _status', "const d: ArticleDraft = { id: '1', createdAt: '', updatedAt: '' };", "Property '_status' is missing"],
    ['an unknown status', "const d: ArticleDraft = { id: '1', createdAt: '', updatedAt: '', _status: 'archived' };", '"archived"'],
    ['an unknown op', `const v: ArticleVersionSummary = { ...${summary}, op: 'edit' };`, '"edit"'],
    ['an actor with a role', `const v: ArticleVersionSummary = { ...${summary}, actor: { origin: 'rest', role: 'admin' } };`, "'role' does not exist"],
    ['a diff of a field the record lacks', "const d: ArticleVersionDiff = { from: 1, to: 2, changes: [{ field: 'secret', before: 'a', after: 'b' }] };", '"secret"'],
    ['a diff value of the wrong type', "const d: ArticleVersionDiff = { from: 1, to: 2, changes: [{ field: 'title', before: 1, after: 'b' }] };", "not assignable"],
    ['an unknown schedule action', "const s: ScheduledAction = { id: 's', action: 'archive', at: '', status: 'pending' };", '"archive"'],
  ])('refuses %s', (_name, code, message) => {
    const errors = compile(`${header}${code}\nexport {};\n`);
    expect(errors.join('\n')).toContain(message);
  });
});
