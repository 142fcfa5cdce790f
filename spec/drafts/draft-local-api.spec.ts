// Working copies through api.local: createDraft, findDraft, findDrafts, saveDraft, discardDraft and the
// global members, with access overridden (server code) or as a user (the same rules as REST), typed.
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import type { DraftRecord, GlobalDraft } from '../../lib';

let t: TestApp;
const writer = { id: 'w1', role: 'writer' };
const reader = { id: 'r1', role: 'reader' };

beforeAll(async () => {
  const canEdit = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'writer';
  t = await createTestApp({
    collections: [
      {
        slug: 'pages',
        versions: { drafts: true },
        fields: { title: { type: 'text', required: true }, body: { type: 'text' } },
        access: { read: () => true, create: canEdit, update: canEdit, delete: canEdit, readDrafts: canEdit },
      },
      { slug: 'plain', fields: { title: { type: 'text' } } },
    ],
    globals: [{ slug: 'home', versions: { drafts: true }, fields: { headline: { type: 'text' } } }],
  });
});

afterAll(async () => {
  await t?.close();
});

describe('api.local working copies', () => {
  it('creates, finds, lists, saves and discards a record as a draft', async () => {
    const created: DraftRecord = await t.api.local.createDraft('pages', { body: 'no title yet' });
    expect(created).toMatchObject({ id: expect.any(String), title: null, _status: 'draft' });
    await expect(t.api.local.findById('pages', created.id)).rejects.toMatchObject({ status: 404 });
    const saved = await t.api.local.saveDraft('pages', created.id, { title: 'Titled' });
    expect(saved).toMatchObject({ title: 'Titled', body: 'no title yet', _status: 'draft' });
    expect(await t.api.local.findDraft('pages', created.id)).toEqual(saved);
    const page = await t.api.local.findDrafts('pages', { where: { title: { eq: 'Titled' } } });
    expect(page.docs.map((d) => [d.id, d._status])).toEqual([[created.id, 'draft']]);
    expect(await t.api.local.discardDraft('pages', created.id)).toEqual({ deleted: true });
    await expect(t.api.local.findDraft('pages', created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('keeps a published record and its working copy apart; saveDraft takes the draft ETag as ifMatch', async () => {
    const published = await t.api.local.create('pages', { title: 'Live' });
    await t.api.local.saveDraft('pages', published.id, { title: 'Next' });
    expect((await t.api.local.findById('pages', published.id)).title).toBe('Live');
    expect(await t.api.local.findDraft('pages', published.id)).toMatchObject({ title: 'Next', _status: 'changed' });
    await expect(t.api.local.saveDraft('pages', published.id, { title: 'x' }, { ifMatch: '"stale"' })).rejects.toMatchObject({ status: 412 });
    const reset = await t.api.local.discardDraft('pages', published.id);
    expect(reset).toMatchObject({ title: 'Live', _status: 'published' });
  });

  it('applies the rules for a user: readDrafts refuses a reader, never falling back to the published record', async () => {
    const published = await t.api.local.create('pages', { title: 'Rules' });
    await expect(t.api.local.findDraft('pages', published.id, { user: reader })).rejects.toMatchObject({ status: 403 });
    await expect(t.api.local.findDraft('pages', published.id, { user: null })).rejects.toMatchObject({ status: 401 });
    await expect(t.api.local.findDrafts('pages', { user: reader })).rejects.toMatchObject({ status: 403 });
    expect(await t.api.local.findDraft('pages', published.id, { user: writer })).toMatchObject({ _status: 'published' });
  });

  it('rejects with a 404 saying drafts are off on a collection without them', async () => {
    await expect(t.api.local.createDraft('plain', { title: 'x' })).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/drafts are off/i) });
  });

  it('reads, saves and discards a global working copy', async () => {
    await t.api.local.updateGlobal('home', { headline: 'Published headline' });
    const saved: GlobalDraft = await t.api.local.saveGlobalDraft('home', { headline: 'Draft headline' });
    expect(saved).toMatchObject({ headline: 'Draft headline', _status: 'changed' });
    expect((await t.api.local.findGlobal('home')).headline).toBe('Published headline');
    expect(await t.api.local.findGlobalDraft('home')).toMatchObject({ headline: 'Draft headline' });
    expect(await t.api.local.discardGlobalDraft('home')).toMatchObject({ headline: 'Published headline', _status: 'published' });
  });
});
