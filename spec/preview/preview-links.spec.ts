// Preview links end to end against the real test database: POST /<slug>/:id/preview makes a link (readDrafts,
// expiresIn 1h by default, at most 7d), the token opens the record's working copy (never the published
// record) as an anonymous reader would see it published, until it expires on the router's clock or is
// revoked (DELETE /<slug>/:id/preview); a wrong, tampered, expired, revoked or other record's token is a 401.
// Only a digest of each token is stored. Globals likewise, and the local API.
import { createHash } from 'node:crypto';
import { Types } from 'mongoose';
import request from 'supertest';
import type { ApiRecord } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { createTestClock } from '../helpers/test-clock';
import { createResponseValidator, lintWithRedocly, validateOpenApiDocument } from '../openapi/openapi-validators';

const EDITOR = { id: '0000000000000000000000e1', role: 'editor' };
const READER = { id: '0000000000000000000000a1', role: 'reader' };
const HOUR = 3_600_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const clock = createTestClock();
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    collections: [
      {
        slug: 'posts',
        versions: { drafts: true },
        access: { read: () => true, create: () => true, update: () => true, readDrafts: ({ user }) => user?.role === 'editor' },
        fields: {
          title: { type: 'text', required: true },
          summary: { type: 'text' },
          secret: { type: 'text', hidden: true },
          internal: { type: 'text', access: { read: ({ user }) => user !== null } },
        },
        hooks: { afterRead: [({ doc }) => ({ ...doc, summary: `about ${String(doc.title)}` })] },
      },
      // readDrafts as a where: only working copies whose title is "open" may be previewed.
      {
        slug: 'notes',
        versions: { drafts: true },
        access: { read: () => true, create: () => true, readDrafts: () => ({ title: { eq: 'open' } }) },
        fields: { title: { type: 'text' } },
      },
      { slug: 'plain', access: { read: () => true, create: () => true }, fields: { title: { type: 'text' } } },
      { slug: 'cached', versions: { drafts: true }, cache: { ttl: 600 }, access: { read: () => true, create: () => true }, fields: { title: { type: 'text' } } },
    ],
    globals: [
      { slug: 'site', versions: { drafts: true }, access: { read: () => true, update: ({ user }) => user?.role === 'editor' }, fields: { headline: { type: 'text' }, hiddenNote: { type: 'text', hidden: true } } },
      { slug: 'footer', access: { read: () => true }, fields: { text: { type: 'text' } } },
    ],
  });
});
afterAll(() => t.close());

/**
 * A record published with `title`, whose working copy then holds `draft`'s values (written to the store
 * directly, beside the router: what an editor's draft saves leave); `draft: null`: a record stored before
 * drafts were switched on, which has no working copy at all.
 */
async function record(slug: string, title: string, draft: Record<string, unknown> | null = { title: `${title} (draft)`, secret: 'hush', internal: 'staff only' }): Promise<string> {
  const published = await t.api.local.create(slug, { title });
  const copies = t.connection.collection(`${slug}_drafts`);
  const _id = new Types.ObjectId(published.id as string);
  if (draft) await copies.updateOne({ _id }, { $set: draft, $setOnInsert: { createdAt: clock.now(), updatedAt: clock.now(), _rev: 1 } }, { upsert: true });
  else await copies.deleteOne({ _id });
  return published.id as string;
}

/** A working copy that was never published. */
async function draftOnly(slug: string, values: Record<string, unknown>): Promise<string> {
  const id = new Types.ObjectId();
  const now = clock.now();
  await t.connection.collection(`${slug}_drafts`).insertOne({ _id: id, ...values, createdAt: now, updatedAt: now, _rev: 1 });
  return id.toHexString();
}

const makeLink = (path: string, body?: unknown, user: Record<string, unknown> | null = EDITOR) => {
  let req = request(t.app).post(`/api${path}/preview`);
  if (user) req = req.set(...asUser(user));
  return body === undefined ? req : req.send(body as object);
};
const open = (slug: string, id: string, token: string) => t.api.local.findDraftByPreview(slug, id, token);
const refused = async (opening: Promise<unknown>) => {
  await expect(opening).rejects.toMatchObject({ status: 401, code: 'invalid_preview_token' });
};

describe('POST /<slug>/:id/preview', () => {
  it('makes a link that expires in 1h: a 256-bit token, the draft URL under the mount, no-store; only its digest is stored', async () => {
    const id = await record('posts', 'Hello');
    const res = await makeLink(`/posts/${id}`);
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { token, url, expiresAt } = res.body as { token: string; url: string; expiresAt: string };
    expect(token).toMatch(TOKEN);
    expect(url).toBe(`/api/posts/${id}/draft?preview=${token}`);
    expect(new Date(expiresAt).getTime()).toBe(clock.now().getTime() + HOUR);
    const rows = await t.connection.collection('content-router.preview-tokens').find({ record: id }).toArray();
    expect(rows).toHaveLength(1);
    expect(rows[0]._id).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]).toMatchObject({ slug: 'posts', global: false, createdBy: { id: EDITOR.id, origin: 'rest' } });
  });

  it.each<[string, unknown, number]>([
    ['7d', '7d', 7 * 24 * HOUR],
    ['30m', '30m', HOUR / 2],
    ['a number of seconds', 90, 90_000],
  ])('takes expiresIn as %s', async (_name, expiresIn, ms) => {
    const id = await record('posts', 'Lifetimes');
    const res = await makeLink(`/posts/${id}`, { expiresIn });
    expect(res.status).toBe(201);
    expect(new Date(res.body.expiresAt as string).getTime()).toBe(clock.now().getTime() + ms);
  });

  it.each<[string, unknown, string]>([
    ['above 7d', { expiresIn: '8d' }, 'too_long'],
    ['above 7d in seconds', { expiresIn: 7 * 86_400 + 1 }, 'too_long'],
    ['zero', { expiresIn: 0 }, 'invalid_duration'],
    ['negative', { expiresIn: -60 }, 'invalid_duration'],
    ['malformed', { expiresIn: 'soon' }, 'invalid_duration'],
    ['a fraction of a unit', { expiresIn: '1.5h' }, 'invalid_duration'],
    ['not a duration at all', { expiresIn: true }, 'invalid_duration'],
    ['an unknown field', { expiresIn: '1h', ttl: 5 }, 'unknown_field'],
    ['not an object', ['1h'], 'invalid_body'],
  ])('refuses %s with a 400, storing nothing', async (_name, body, code) => {
    const id = await record('posts', 'Bad input');
    const res = await makeLink(`/posts/${id}`, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.errors).toEqual([expect.objectContaining({ code })]);
    expect(await t.connection.collection('content-router.preview-tokens').countDocuments({ record: id })).toBe(0);
  });

  it('needs readDrafts: 401 without a user, 403 for one the rule refuses', async () => {
    const id = await record('posts', 'Guarded');
    expect((await makeLink(`/posts/${id}`, undefined, null)).status).toBe(401);
    const res = await makeLink(`/posts/${id}`, undefined, READER);
    expect(res.status).toBe(403);
    expect(await t.connection.collection('content-router.preview-tokens').countDocuments({ record: id })).toBe(0);
  });

  it('matches a readDrafts where against the working copy: outside it is a 404', async () => {
    const inside = await draftOnly('notes', { title: 'open' });
    const outside = await record('notes', 'open', { title: 'closed' });
    expect((await makeLink(`/notes/${inside}`)).status).toBe(201);
    // The published record matches, but the working copy is what a link shows, and it does not.
    expect((await makeLink(`/notes/${outside}`)).status).toBe(404);
  });

  it('is a 404 for an unknown or malformed id', async () => {
    expect((await makeLink(`/posts/${new Types.ObjectId().toHexString()}`)).status).toBe(404);
    expect((await makeLink('/posts/not-an-id')).status).toBe(404);
  });

  it('is a 404 saying drafts are off on a collection or global without drafts, over REST and the local API', async () => {
    const plain = await t.api.local.create('plain', { title: 'x' });
    for (const path of [`/plain/${String(plain.id)}`, '/globals/footer']) {
      for (const res of [await makeLink(path), await request(t.app).delete(`/api${path}/preview`).set(...asUser(EDITOR))]) {
        expect(res.status).toBe(404);
        expect(res.body.detail).toMatch(/Drafts are off/);
      }
    }
    const off = { status: 404, message: expect.stringMatching(/Drafts are off/) };
    await expect(t.api.local.createPreview('plain', String(plain.id))).rejects.toMatchObject(off);
    await expect(t.api.local.revokePreviews('plain', String(plain.id))).rejects.toMatchObject(off);
    await expect(t.api.local.findDraftByPreview('plain', String(plain.id), 'x'.repeat(43))).rejects.toMatchObject(off);
    await expect(t.api.local.createGlobalPreview('footer')).rejects.toMatchObject(off);
  });
});

describe('opening a link (findDraftByPreview)', () => {
  it('shows the working copy, never the published record, as an anonymous reader would see it published', async () => {
    const id = await record('posts', 'Published title');
    const { token } = (await makeLink(`/posts/${id}`)).body as { token: string };
    const shown = await open('posts', id, token);
    expect(shown).toMatchObject({ id, title: 'Published title (draft)', summary: 'about Published title (draft)' });
    // Hidden fields and fields no user may read stay out, though the link was made by an editor.
    expect(shown).not.toHaveProperty('secret');
    expect(shown).not.toHaveProperty('internal');
  });

  it('shows a never-published draft, and the published record of one that has no working copy yet', async () => {
    const draft = await draftOnly('posts', { title: 'Only a draft' });
    const { token } = (await makeLink(`/posts/${draft}`)).body as { token: string };
    expect(await open('posts', draft, token)).toMatchObject({ id: draft, title: 'Only a draft' });
    const old = await record('posts', 'From before drafts', null);
    const link = (await makeLink(`/posts/${old}`)).body as { token: string };
    expect(await open('posts', old, link.token)).toMatchObject({ id: old, title: 'From before drafts' });
  });

  it('refuses a wrong, tampered or malformed token, and one for another record, with a 401', async () => {
    const id = await record('posts', 'Mine');
    const other = await record('posts', 'Theirs');
    const { token } = (await makeLink(`/posts/${other}`)).body as { token: string };
    await refused(open('posts', id, token));
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    await refused(open('posts', other, flipped));
    await refused(open('posts', other, 'x'.repeat(43)));
    await refused(open('posts', other, 'short'));
    await refused(open('posts', other, `${token}=`));
    await expect(open('posts', other, token)).resolves.toMatchObject({ title: 'Theirs (draft)' });
  });

  it('refuses a link once the clock reaches its expiry, whether or not a TTL monitor removed it', async () => {
    const id = await record('posts', 'Short-lived');
    const { token } = (await makeLink(`/posts/${id}`, { expiresIn: '1h' })).body as { token: string };
    clock.advance(HOUR - 1);
    await expect(open('posts', id, token)).resolves.toMatchObject({ id });
    clock.advance(1);
    await refused(open('posts', id, token));
  });

  it('reads the working copy afresh every time, on a collection with a response cache too', async () => {
    const id = await record('cached', 'Cached', { title: 'First draft' });
    const link = await t.api.local.createPreview('cached', id);
    expect(await open('cached', id, link.token)).toMatchObject({ title: 'First draft' });
    expect((await request(t.app).get(`/api${link.path}`)).body).toMatchObject({ title: 'First draft' });
    // A change the router never saw (another instance, a script): no cached answer hides it.
    await t.connection.collection('cached_drafts').updateOne({ _id: new Types.ObjectId(id) }, { $set: { title: 'Second draft' } });
    expect(await open('cached', id, link.token)).toMatchObject({ title: 'Second draft' });
    const res = await request(t.app).get(`/api${link.path}`);
    expect(res.body).toMatchObject({ title: 'Second draft' });
    expect(res.headers['x-cache']).toBeUndefined();
  });

  it('builds a TTL index that clears expired links away', async () => {
    const indexes = await t.connection.collection('content-router.preview-tokens').listIndexes().toArray();
    expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 })]));
  });
});

describe('GET /<slug>/:id/draft?preview=<token>', () => {
  const read = (path: string, token: string, user?: Record<string, unknown>) => {
    const req = request(t.app).get(`/api${path}/draft`).query({ preview: token });
    return user ? req.set(...asUser(user)) : req;
  };

  it('answers the working copy to anyone holding the link, no-store and noindex', async () => {
    const id = await record('posts', 'Over HTTP');
    const { token, url } = (await makeLink(`/posts/${id}`)).body as { token: string; url: string };
    const res = await request(t.app).get(url);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, title: 'Over HTTP (draft)', summary: 'about Over HTTP (draft)' });
    expect(res.body).not.toHaveProperty('secret');
    expect(res.body).not.toHaveProperty('internal');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    // A reader with a credential of its own is still shown what an anonymous reader sees.
    expect((await read(`/posts/${id}`, token, READER)).body).not.toHaveProperty('internal');
  });

  it('is a 401 problem for a wrong, tampered, other record\'s, expired or revoked token, never the published record', async () => {
    const id = await record('posts', 'Guarded over HTTP');
    const other = await record('posts', 'Elsewhere');
    const { token } = (await makeLink(`/posts/${id}`)).body as { token: string };
    const elsewhere = (await makeLink(`/posts/${other}`)).body as { token: string };
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const bad of [flipped, elsewhere.token, 'nonsense']) {
      const res = await read(`/posts/${id}`, bad);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('invalid_preview_token');
      expect(JSON.stringify(res.body)).not.toContain('Guarded over HTTP');
    }
    const short = (await makeLink(`/posts/${id}`, { expiresIn: 60 })).body as { token: string };
    clock.advance(60_000);
    expect((await read(`/posts/${id}`, short.token)).status).toBe(401);
    expect((await read(`/posts/${id}`, token)).status).toBe(200);
    await request(t.app).delete(`/api/posts/${id}/preview`).set(...asUser(EDITOR));
    expect((await read(`/posts/${id}`, token)).status).toBe(401);
  });

  it('opens a global working copy through /globals/<slug>/draft?preview=, no-store and noindex', async () => {
    await t.api.local.updateGlobal('site', { headline: 'Live' });
    const now = clock.now();
    await t.connection.collection('globals_drafts').updateOne({ _id: 'site' as unknown as Types.ObjectId }, { $set: { headline: 'Coming soon', hiddenNote: 'x', createdAt: now, updatedAt: now, _rev: 1 } }, { upsert: true });
    const { token, url } = (await makeLink('/globals/site')).body as { token: string; url: string };
    const res = await request(t.app).get(url);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(res.body).toMatchObject({ headline: 'Coming soon' });
    expect(res.body).not.toHaveProperty('hiddenNote');
    const wrong = await request(t.app).get(`/api/globals/site/draft?preview=${token.slice(0, -2)}xx`);
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('Live');
  });
});

describe('DELETE /<slug>/:id/preview', () => {
  it("revokes every link of the record, and none of another record's", async () => {
    const id = await record('posts', 'Revoked');
    const other = await record('posts', 'Kept');
    const first = (await makeLink(`/posts/${id}`)).body as { token: string };
    const second = (await makeLink(`/posts/${id}`, { expiresIn: '2h' })).body as { token: string };
    const kept = (await makeLink(`/posts/${other}`)).body as { token: string };
    const res = await request(t.app).delete(`/api/posts/${id}/preview`).set(...asUser(EDITOR));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: 2 });
    await refused(open('posts', id, first.token));
    await refused(open('posts', id, second.token));
    await expect(open('posts', other, kept.token)).resolves.toMatchObject({ id: other });
  });

  it('needs readDrafts: 401 without a user, 403 for one the rule refuses, revoking nothing', async () => {
    const id = await record('posts', 'Still open');
    const { token } = (await makeLink(`/posts/${id}`)).body as { token: string };
    expect((await request(t.app).delete(`/api/posts/${id}/preview`)).status).toBe(401);
    expect((await request(t.app).delete(`/api/posts/${id}/preview`).set(...asUser(READER))).status).toBe(403);
    await expect(open('posts', id, token)).resolves.toMatchObject({ id });
  });
});

describe('a deleted record', () => {
  it('loses its links once neither its published record nor its working copy is left, so a record created again under its id does not reopen them', async () => {
    const links = t.connection.collection('content-router.preview-tokens');
    const linkOf = async (id: string) => ((await makeLink(`/posts/${id}`)).body as { token: string }).token;
    // Deleting the published record takes its working copy along: nothing is left.
    const deleted = await record('posts', 'Doomed');
    const deletedToken = await linkOf(deleted);
    await t.api.local.delete('posts', deleted);
    // Discarding a never-published draft deletes the record.
    const discarded = await draftOnly('posts', { title: 'Never published' });
    await linkOf(discarded);
    await t.api.local.discardDraft('posts', discarded);
    // Discarding the changes of a published record leaves its working copy (now the published state): links stay.
    const reset = await record('posts', 'Reset');
    const resetToken = await linkOf(reset);
    await t.api.local.discardDraft('posts', reset);
    await until(async () => (await links.countDocuments({ record: { $in: [deleted, discarded] } })) === 0, 10_000, 'the links of the deleted records to go');
    await expect(open('posts', reset, resetToken)).resolves.toMatchObject({ id: reset, title: 'Reset' });
    await t.connection.collection('posts_drafts').insertOne({ _id: new Types.ObjectId(deleted), title: 'Born again' });
    await refused(open('posts', deleted, deletedToken));
  });
});

describe('preview links of a global', () => {
  it('makes, opens and revokes a link of the global working copy', async () => {
    await t.api.local.revokeGlobalPreviews('site');
    await t.api.local.updateGlobal('site', { headline: 'Live' });
    const now = clock.now();
    await t.connection.collection('globals_drafts').updateOne({ _id: 'site' as unknown as Types.ObjectId }, { $set: { headline: 'Coming soon', hiddenNote: 'x', createdAt: now, updatedAt: now, _rev: 1 } }, { upsert: true });
    const res = await makeLink('/globals/site');
    expect(res.status).toBe(201);
    const { token, url } = res.body as { token: string; url: string };
    expect(url).toBe(`/api/globals/site/draft?preview=${token}`);
    const shown = await t.api.local.findGlobalDraftByPreview('site', token);
    expect(shown).toMatchObject({ headline: 'Coming soon' });
    expect(shown).not.toHaveProperty('hiddenNote');
    expect(shown).not.toHaveProperty('id');
    expect((await request(t.app).delete('/api/globals/site/preview').set(...asUser(EDITOR))).body).toEqual({ revoked: 1 });
    await expect(t.api.local.findGlobalDraftByPreview('site', token)).rejects.toMatchObject({ status: 401 });
  });
});

describe('the local API', () => {
  it('makes a link as server code (access overridden), or as a user under readDrafts, and checks expiresIn the same way', async () => {
    const id = await record('posts', 'Local');
    const link = await t.api.local.createPreview('posts', id, { expiresIn: '2h' });
    expect(link.path).toBe(`/posts/${id}/draft?preview=${link.token}`);
    expect(link.expiresAt.getTime()).toBe(clock.now().getTime() + 2 * HOUR);
    const shown: ApiRecord = await t.api.local.findDraftByPreview('posts', id, link.token, { user: EDITOR, overrideAccess: true } as never);
    // The reader stays anonymous whatever the call says.
    expect(shown).not.toHaveProperty('internal');
    await expect(t.api.local.createPreview('posts', id, { user: READER })).rejects.toMatchObject({ status: 403 });
    await expect(t.api.local.createPreview('posts', id, { expiresIn: '8d' })).rejects.toMatchObject({ status: 400 });
    await expect(t.api.local.revokePreviews('posts', id, { user: EDITOR })).resolves.toEqual({ revoked: 1 });
  });
});

describe('the OpenAPI document', () => {
  it('describes the preview routes of drafts collections and globals only, lint-clean, and their answers match it', async () => {
    const doc = (await request(t.app).get('/api/docs/openapi.json')).body as Parameters<typeof createResponseValidator>[0];
    expect(validateOpenApiDocument(doc)).toEqual({ valid: true });
    const previewPaths = Object.keys(doc.paths).filter((p) => p.endsWith('/preview')).sort();
    expect(previewPaths).toEqual(['/cached/{id}/preview', '/globals/site/preview', '/notes/{id}/preview', '/posts/{id}/preview']);
    // This router has no auth collection and declares no security schemes: no operation of it has security (security-defined).
    const problems = lintWithRedocly(doc).filter((p) => (p.location[0]?.pointer ?? '').includes('preview') && p.ruleId !== 'security-defined');
    expect(lintWithRedocly(doc).filter((p) => p.ruleId === 'security-defined' && p.location[0]?.pointer === '#/paths/~1posts~1{id}/get')).toHaveLength(1);
    expect(problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    const validator = createResponseValidator(doc);
    const id = await record('posts', 'Documented');
    const made = await makeLink(`/posts/${id}`);
    expect(validator.errorsOf(`/posts/${id}/preview`, 'post', 201, 'application/json', made.body)).toEqual([]);
    const revoked = await request(t.app).delete(`/api/posts/${id}/preview`).set(...asUser(EDITOR));
    expect(validator.errorsOf(`/posts/${id}/preview`, 'delete', 200, 'application/json', revoked.body)).toEqual([]);
  });
});
