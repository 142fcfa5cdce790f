// `upload` fields and the rest of the uploads feature around them: ids checked on write (400 naming the
// field), population with depth/include (batched: one query on the files per level), the access rules of
// uploads.access (true/false/where), and api.local.upload() from a buffer or a stream.
import { Readable } from 'node:stream';
import request from 'supertest';
import mongoose, { type Connection } from 'mongoose';
import { ForbiddenError, UnsupportedMediaTypeError } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { closeTestConnection, testDbUri, uniqueDbName } from '../helpers/test-db';
import { countStored, pngBytes } from './upload-helpers';

const alice = asUser({ id: '000000000000000000000001' });
const bob = asUser({ id: '000000000000000000000002' });
const missing = '0123456789abcdef01234567';

// The machine running the suite may be busy; these tests stream real files.
jest.setTimeout(60_000);

let t: TestApp;
let connection: Connection;
let dbName: string;
/** `find` commands sent to this test's database, by collection. */
let finds: string[] = [];

beforeAll(async () => {
  dbName = uniqueDbName();
  connection = await mongoose.createConnection(testDbUri(), { dbName, monitorCommands: true }).asPromise();
  connection.getClient().on('commandStarted', (event) => {
    if (event.commandName === 'find' && event.databaseName === dbName) finds.push(String(event.command.find));
  });
  t = await createTestApp(
    {
      collections: [
        {
          slug: 'profiles',
          access: { read: () => true, create: () => true, update: () => true },
          fields: { name: { type: 'text' }, avatar: { type: 'upload' }, gallery: { type: 'upload', hasMany: true } },
        },
      ],
      uploads: {
        allowedMimeTypes: ['image/*', 'text/plain'],
        access: {
          // Text files only for their uploader; images for everyone.
          read: ({ user }) => (user ? { or: [{ mimeType: { like: 'image/' } }, { uploadedBy: { eq: user.id } }] } : { mimeType: { like: 'image/' } }),
          delete: ({ user }) => (user ? { uploadedBy: { eq: user.id } } : false),
          create: ({ user }) => (user?.id === '000000000000000000000003' ? false : user !== null),
        },
      },
    },
    { connection },
  );
});
afterAll(async () => {
  await t.close();
  await closeTestConnection(connection);
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

const uploadPng = async (who = alice, name = 'a.png') =>
  (await request(t.app).post('/api/upload').set(...who).attach('file', pngBytes(), { filename: name, contentType: 'image/png' }).expect(201)).body;

describe('upload fields', () => {
  it('refuse an id that names no file, with a 400 naming the field', async () => {
    const file = await uploadPng();
    const res = await request(t.app).post('/api/profiles').send({ name: 'x', avatar: missing, gallery: [file.id, missing] }).expect(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ field: 'avatar', code: 'unknown_file' }),
      expect.objectContaining({ field: 'gallery', code: 'unknown_file' }),
    ]);
    const created = await request(t.app).post('/api/profiles').send({ name: 'x', avatar: file.id }).expect(201);
    const update = await request(t.app).patch(`/api/profiles/${created.body.id}`).send({ avatar: missing }).expect(400);
    expect(update.body.errors).toEqual([expect.objectContaining({ field: 'avatar', code: 'unknown_file' })]);
  });

  it('refuse an id of a file the caller may not read exactly as an id that names no file', async () => {
    const secret = (await request(t.app).post('/api/upload').set(...alice).attach('file', Buffer.from('private'), { filename: 'p.txt', contentType: 'text/plain' }).expect(201)).body;
    const image = await uploadPng(alice);
    const refused = (body: unknown) => ({ status: 400, type: 'urn:content-router:problem:validation_error', title: 'Validation failed', detail: expect.any(String), code: 'validation_error', ...(body as object) });
    for (const who of [bob, undefined]) {
      const post = (body: object) => (who ? request(t.app).post('/api/profiles').set(...who) : request(t.app).post('/api/profiles')).send(body);
      const unreadable = await post({ name: 'b', avatar: secret.id, gallery: [image.id, secret.id] });
      const absent = await post({ name: 'b', avatar: missing, gallery: [image.id, missing] });
      expect(unreadable.status).toBe(400);
      expect(absent.status).toBe(400);
      // The same answer but for the id itself: nothing tells a file the caller may not read from no file.
      expect(unreadable.body).toEqual(JSON.parse(JSON.stringify(absent.body).replaceAll(missing, secret.id)));
      expect(unreadable.body).toEqual(refused({ errors: [
        { field: 'avatar', message: `no file with id ${secret.id}`, code: 'unknown_file' },
        { field: 'gallery', message: `no file with id ${secret.id}`, code: 'unknown_file' },
      ] }));
    }
    const profile = await request(t.app).post('/api/profiles').set(...alice).send({ name: 'mine', avatar: secret.id }).expect(201);
    const update = await request(t.app).patch(`/api/profiles/${profile.body.id}`).set(...bob).send({ gallery: [secret.id] }).expect(400);
    expect(update.body.errors).toEqual([{ field: 'gallery', message: `no file with id ${secret.id}`, code: 'unknown_file' }]);
    // Server code without a user skips access rules, here too.
    await expect(t.api.local.create('profiles', { name: 'local', avatar: secret.id })).resolves.toMatchObject({ avatar: secret.id });
    await expect(t.api.local.create('profiles', { name: 'local', avatar: secret.id }, { user: { id: '000000000000000000000002' } })).rejects.toMatchObject({ status: 400 });
  });

  it('populate with depth and include, one query on the files for every row', async () => {
    const files = [await uploadPng(alice, 'one.png'), await uploadPng(alice, 'two.png'), await uploadPng(alice, 'three.png')];
    for (let i = 0; i < 3; i++) {
      await request(t.app).post('/api/profiles').send({ name: `p${i}`, avatar: files[i].id, gallery: files.map((f) => f.id) }).expect(201);
    }
    finds = [];
    const list = await request(t.app).get('/api/profiles?depth=1&where[name][like]=p&sort=name').expect(200);
    expect(finds.filter((name) => name === 'uploads.files')).toHaveLength(2); // avatar and gallery: one each
    const rows = list.body.data as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(3);
    for (const [i, row] of rows.entries()) {
      expect(row.avatar).toEqual(files[i]);
      expect(row.gallery).toEqual(files);
    }
    const one = await request(t.app).get(`/api/profiles/${(rows[0] as { id: string }).id}?include=avatar`).expect(200);
    expect(one.body.avatar).toEqual(files[0]);
    expect(one.body.gallery).toEqual(files.map((f) => f.id));
    const plain = await request(t.app).get(`/api/profiles/${(rows[0] as { id: string }).id}`).expect(200);
    expect(plain.body.avatar).toBe(files[0].id);
  });

  it('leave files the caller may not read as ids', async () => {
    const text = await request(t.app).post('/api/upload').set(...alice).attach('file', Buffer.from('secret'), { filename: 's.txt', contentType: 'text/plain' }).expect(201);
    const profile = await request(t.app).post('/api/profiles').set(...alice).send({ name: 'private', avatar: text.body.id }).expect(201);
    const anonymous = await request(t.app).get(`/api/profiles/${profile.body.id}?depth=1`).expect(200);
    expect(anonymous.body.avatar).toBe(text.body.id);
    const owner = await request(t.app).get(`/api/profiles/${profile.body.id}?depth=1`).set(...alice).expect(200);
    expect(owner.body.avatar).toEqual(text.body);
  });
});

describe('uploads.access', () => {
  it('read: a where decides which files a caller is served (404 otherwise)', async () => {
    const text = await request(t.app).post('/api/upload').set(...alice).attach('file', Buffer.from('mine'), { filename: 'm.txt', contentType: 'text/plain' }).expect(201);
    await request(t.app).get(text.body.url).set(...alice).expect(200);
    await request(t.app).get(text.body.url).set(...bob).expect(404);
    await request(t.app).get(text.body.url).expect(404);
    const image = await uploadPng(alice);
    await request(t.app).get(image.url).expect(200);
  });

  it('delete: only the uploader; create: false is a 403, allowedMimeTypes a 415', async () => {
    const image = await uploadPng(alice);
    await request(t.app).delete(image.url).set(...bob).expect(404);
    await request(t.app).delete(image.url).expect(401);
    await request(t.app).delete(image.url).set(...alice).expect(200);

    const before = await countStored(connection);
    const denied = await request(t.app).post('/api/upload').set(...asUser({ id: '000000000000000000000003' })).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' });
    expect(denied.status).toBe(403);
    const pdf = await request(t.app).post('/api/upload').set(...alice).attach('file', Buffer.from('%PDF-1.4\n%\xe2\xe3\n1 0 obj\n'), { filename: 'a.pdf', contentType: 'application/pdf' });
    expect(pdf.status).toBe(415);
    expect(await countStored(connection)).toEqual(before);
  });
});

describe('api.local.upload', () => {
  it('stores a buffer or a stream and checks its type like HTTP', async () => {
    const fromBuffer = await t.api.local.upload(pngBytes(), { filename: 'dir/local.png', mimeType: 'image/png', alt: 'local' });
    expect(fromBuffer).toMatchObject({ originalName: 'local.png', mimeType: 'image/png', size: pngBytes().length, alt: 'local', url: `/api/uploads/${fromBuffer.filename}` });
    const served = await request(t.app).get(`/api/uploads/${fromBuffer.filename}`).expect(200);
    expect(Buffer.compare(served.body as Buffer, pngBytes())).toBe(0);

    const fromStream = await t.api.local.upload(Readable.from([Buffer.from('line one\n'), Buffer.from('line two\n')]), { filename: 'notes.txt', mimeType: 'text/plain' });
    expect(fromStream).toMatchObject({ mimeType: 'text/plain', size: 18, alt: null });

    await expect(t.api.local.upload(Buffer.from('<html></html>'), { filename: 'x.png', mimeType: 'image/png' })).rejects.toBeInstanceOf(UnsupportedMediaTypeError);
    await expect(t.api.local.upload(pngBytes(), { filename: 'x.png', user: { id: '000000000000000000000003' } })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('says clearly that uploads are not configured when they are not', async () => {
    const bare = await createTestApp({ collections: [{ slug: 'things', fields: { name: { type: 'text' } } }] });
    try {
      await expect(bare.api.local.upload(pngBytes(), { filename: 'a.png' })).rejects.toThrow(/uploads are not configured/);
      await request(bare.app).post('/api/upload').expect(404);
    } finally {
      await bare.close();
    }
  });
});

describe('uploads.access.create returning a where', () => {
  it('keeps a file that matches it and removes one that does not (403)', async () => {
    const app = await createTestApp({ uploads: { bucket: 'pngs', access: { create: () => ({ mimeType: { eq: 'image/png' } }) } } });
    try {
      const png = await request(app.app).post('/api/upload').set(...alice).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' });
      expect(png.status).toBe(201);
      const text = await request(app.app).post('/api/upload').set(...alice).attach('file', Buffer.from('hi'), { filename: 'a.txt', contentType: 'text/plain' });
      expect(text.status).toBe(403);
      expect(await countStored(app.connection, 'pngs')).toEqual({ files: 1, chunks: 1 });
      await expect(app.api.local.upload(Buffer.from('hi'), { filename: 'b.txt', mimeType: 'text/plain', user: { id: '000000000000000000000001' } })).rejects.toBeInstanceOf(ForbiddenError);
      expect(await countStored(app.connection, 'pngs')).toEqual({ files: 1, chunks: 1 });
    } finally {
      await app.close();
    }
  });
});
