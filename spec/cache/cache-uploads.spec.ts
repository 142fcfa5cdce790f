// The response cache and upload fields: an answer that populated a file is keyed on the caller's read access
// to files (uploads.access.read), as on a related collection's, so a file only its uploader may read never
// reaches anyone else from the cache.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { pngBytes } from '../uploads/upload-helpers';

const ALICE = asUser({ id: '000000000000000000000001' });
const BOB = asUser({ id: '000000000000000000000002' });

let t: TestApp;
let file: { id: string; filename: string; url: string };
let profile: string;

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'profiles',
        cache: { ttl: 600 },
        fields: { name: { type: 'text' }, avatar: { type: 'upload' }, gallery: { type: 'upload', hasMany: true } },
        access: { read: () => true, create: () => true },
      },
    ],
    uploads: {
      // Files for their uploader only.
      access: { read: ({ user }) => (user ? { uploadedBy: { eq: user.id } } : false) },
    },
  });
  const uploaded = await request(t.app)
    .post('/api/upload')
    .set(...ALICE)
    .attach('file', pngBytes(), { filename: 'private.png', contentType: 'image/png' })
    .field('alt', 'my secret')
    .expect(201);
  file = uploaded.body;
  // Written by the uploader: an upload field takes only files its writer may read.
  profile = (await request(t.app).post('/api/profiles').set(...ALICE).send({ name: 'alice', avatar: file.id, gallery: [file.id] }).expect(201)).body.id;
});

afterAll(async () => {
  await t?.close();
});

afterEach(() => expect(t.hostErrors).toEqual([]));

const get = (path: string, user?: [string, string]) => {
  const req = request(t.app).get(`/api${path}`);
  return user ? req.set(...user) : req;
};

describe.each([
  ['a record with depth=1', () => `/profiles/${profile}?depth=1`, (body: Record<string, unknown>) => body],
  ['a list with include', () => '/profiles?include=avatar,gallery', (body: Record<string, unknown>) => (body.data as Record<string, unknown>[])[0]],
])('%s', (_name, path, recordOf) => {
  it('shows the uploader the file, and everyone else only its id, never from the uploader’s entry', async () => {
    const own = await get(path(), ALICE).expect(200);
    expect(recordOf(own.body)).toMatchObject({ avatar: { id: file.id, filename: file.filename, alt: 'my secret' }, gallery: [{ id: file.id }] });
    expect((await get(path(), ALICE).expect(200)).headers['x-cache']).toBe('HIT');

    for (const caller of [undefined, BOB]) {
      const other = await get(path(), caller).expect(200);
      expect(other.headers['x-cache']).toBe('MISS');
      expect(recordOf(other.body)).toMatchObject({ avatar: file.id, gallery: [file.id] });
      expect(other.text).not.toContain(file.filename);
      expect(other.text).not.toContain('my secret');
      // Callers with the same view share their own entry.
      const again = await get(path(), caller).expect(200);
      expect(again.headers['x-cache']).toBe('HIT');
      expect(again.body).toEqual(other.body);
    }
    expect((await get(path(), ALICE).expect(200)).body).toEqual(own.body);
  });
});

it('keeps answers without population shared: the files’ rule is not asked for them', async () => {
  const anonymous = await get(`/profiles/${profile}`).expect(200);
  expect(anonymous.body.avatar).toBe(file.id);
  const alice = await get(`/profiles/${profile}`, ALICE).expect(200);
  expect(alice.headers['x-cache']).toBe('HIT');
  expect(alice.body).toEqual(anonymous.body);
});

describe('a change to the files', () => {
  it('refreshes a cached answer that populated a deleted file: the next read is a MISS showing the id only', async () => {
    const doomed = (await request(t.app).post('/api/upload').set(...ALICE).attach('file', pngBytes(), { filename: 'doomed.png', contentType: 'image/png' }).expect(201)).body;
    const id = (await request(t.app).post('/api/profiles').set(...ALICE).send({ name: 'doomed', avatar: doomed.id }).expect(201)).body.id;
    const path = `/profiles/${id}?depth=1`;
    expect((await get(path, ALICE).expect(200)).body.avatar).toMatchObject({ id: doomed.id, filename: doomed.filename });
    expect((await get(path, ALICE).expect(200)).headers['x-cache']).toBe('HIT');

    await request(t.app).delete(doomed.url).set(...ALICE).expect(200);
    const after = await get(path, ALICE).expect(200);
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.body.avatar).toBe(doomed.id);
    expect(after.text).not.toContain(doomed.filename);
  });

  it('refreshes it after a delete through the local API too', async () => {
    const doomed = await t.api.local.upload(pngBytes(), { filename: 'local.png', mimeType: 'image/png', user: { id: '000000000000000000000001' } });
    const id = (await request(t.app).post('/api/profiles').set(...ALICE).send({ name: 'local', gallery: [doomed.id] }).expect(201)).body.id;
    const path = `/profiles/${id}?include=gallery`;
    expect((await get(path, ALICE).expect(200)).body.gallery).toEqual([expect.objectContaining({ id: doomed.id })]);
    expect((await get(path, ALICE).expect(200)).headers['x-cache']).toBe('HIT');

    await t.api.local.deleteUpload(doomed.filename);
    const after = await get(path, ALICE).expect(200);
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.body.gallery).toEqual([doomed.id]);
  });

  it('reads an answer that populated files again after an upload, which is a change of the files too', async () => {
    const path = `/profiles/${profile}?depth=1`;
    await get(path, ALICE).expect(200);
    expect((await get(path, ALICE).expect(200)).headers['x-cache']).toBe('HIT');
    await t.api.local.upload(pngBytes(), { filename: 'new.png', mimeType: 'image/png' });
    expect((await get(path, ALICE).expect(200)).headers['x-cache']).toBe('MISS');
  });
});
