// Storing and deleting a file are operations, one sequence for POST /upload, DELETE /uploads/:filename and
// the local API: the create rule is checked before a byte reaches GridFS (commands to the database are
// watched), alt is written with the file's record (one insert, never an update), and both entry points
// answer the same errors and store the same metadata.
import { Readable } from 'node:stream';
import request from 'supertest';
import mongoose, { type Connection } from 'mongoose';
import { ForbiddenError, NotFoundError, UnauthorizedError, UnsupportedMediaTypeError, ValidationError } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { closeTestConnection, testDbUri, uniqueDbName } from '../helpers/test-db';
import { countStored, pngBytes } from './upload-helpers';

const ALICE = { id: '000000000000000000000001' };
const BOB = { id: '000000000000000000000002' };

jest.setTimeout(60_000);

let t: TestApp;
let connection: Connection;
let dbName: string;
/** Writes sent to this test's database: `<command> <collection>`, with the inserted documents. */
let writes: Array<{ command: string; collection: string; documents?: Array<Record<string, unknown>> }> = [];

beforeAll(async () => {
  dbName = uniqueDbName();
  connection = await mongoose.createConnection(testDbUri(), { dbName, monitorCommands: true }).asPromise();
  connection.getClient().on('commandStarted', (event) => {
    if (event.databaseName !== dbName || !['insert', 'update', 'delete', 'findAndModify'].includes(event.commandName)) return;
    const command = event.command as Record<string, unknown>;
    writes.push({ command: event.commandName, collection: String(command[event.commandName]), documents: command.documents as Array<Record<string, unknown>> | undefined });
  });
  t = await createTestApp(
    {
      uploads: {
        access: {
          // Only PNGs, from users; only the uploader deletes.
          create: ({ user }) => (user ? { mimeType: { eq: 'image/png' } } : false),
          delete: ({ user }) => (user ? { uploadedBy: { eq: user.id } } : false),
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
beforeEach(() => {
  writes = [];
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

const gridfsWrites = () => writes.filter((w) => w.collection.startsWith('uploads.'));
/** 600 kB of text: three GridFS chunks, were it stored. */
const bigText = () => Buffer.alloc(600 * 1024, 'a');

describe('the create rule', () => {
  it('is checked before anything is stored: a refused upload writes no files document and no chunk', async () => {
    const before = await countStored(connection);
    const res = await request(t.app).post('/api/upload').set(...asUser(ALICE)).attach('file', bigText(), { filename: 'a.txt', contentType: 'text/plain' });
    expect(res.status).toBe(403);
    await expect(t.api.local.upload(bigText(), { filename: 'b.txt', mimeType: 'text/plain', user: ALICE })).rejects.toBeInstanceOf(ForbiddenError);
    expect(gridfsWrites()).toEqual([]);
    expect(await countStored(connection)).toEqual(before);
  });

  it('refuses a caller it denies outright before reading the body', async () => {
    const res = await request(t.app).post('/api/upload').attach('file', bigText(), { filename: 'a.txt', contentType: 'text/plain' });
    expect(res.status).toBe(401);
    await expect(t.api.local.upload(bigText(), { filename: 'b.txt', mimeType: 'text/plain', user: null })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(gridfsWrites()).toEqual([]);
  });

  it('naming the size or the alt text, is checked once they are known, and leaves nothing behind when it refuses', async () => {
    const app = await createTestApp({ uploads: { bucket: 'sized', access: { create: () => ({ and: [{ size: { lte: 300 * 1024 } }, { alt: { exists: true } }] }) } } });
    try {
      const upload = (bytes: Buffer, alt?: string) => {
        const req = request(app.app).post('/api/upload').set(...asUser(ALICE)).attach('file', bytes, { filename: 'a.txt', contentType: 'text/plain' });
        // After the file, where the reader meets it last.
        return alt === undefined ? req : req.field('alt', alt);
      };
      expect((await upload(bigText(), 'too big')).status).toBe(403);
      expect((await upload(Buffer.from('small'))).status).toBe(403);
      expect(await countStored(app.connection, 'sized')).toEqual({ files: 0, chunks: 0 });
      await expect(app.api.local.upload(bigText(), { filename: 'c.txt', mimeType: 'text/plain', alt: 'too big', user: ALICE })).rejects.toBeInstanceOf(ForbiddenError);
      expect(await countStored(app.connection, 'sized')).toEqual({ files: 0, chunks: 0 });
      expect((await upload(Buffer.from('small'), 'described')).status).toBe(201);
      expect(await countStored(app.connection, 'sized')).toEqual({ files: 1, chunks: 1 });
    } finally {
      await app.close();
    }
  });
});

describe('alt', () => {
  it('is written with the file: one insert of its record, alt included, and no update, wherever it comes in the body', async () => {
    // Large enough that the alt text after it arrives well after the file's first bytes.
    const bigPng = Buffer.concat([pngBytes(), Buffer.alloc(600 * 1024)]);
    const after = await request(t.app)
      .post('/api/upload')
      .set(...asUser(ALICE))
      .attach('file', bigPng, { filename: 'after.png', contentType: 'image/png' })
      .field('alt', 'after the file')
      .expect(201);
    const before = await request(t.app)
      .post('/api/upload')
      .set(...asUser(ALICE))
      .field('alt', 'before the file')
      .attach('file', pngBytes(), { filename: 'before.png', contentType: 'image/png' })
      .expect(201);
    const records = writes.filter((w) => w.collection === 'uploads.files');
    expect(records.map((w) => w.command)).toEqual(['insert', 'insert']);
    expect(records.map((w) => (w.documents?.[0]?.metadata as Record<string, unknown>).alt)).toEqual(['after the file', 'before the file']);
    expect([after.body.alt, before.body.alt]).toEqual(['after the file', 'before the file']);
  });

  it('takes 1000 characters of any script (3000 bytes of UTF-8), and refuses 1001 with a 400 naming it', async () => {
    const cjk = '日'.repeat(1000);
    const ok = await request(t.app).post('/api/upload').set(...asUser(ALICE)).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' }).field('alt', cjk);
    expect(ok.status).toBe(201);
    expect(ok.body.alt).toBe(cjk);
    const long = await request(t.app).post('/api/upload').set(...asUser(ALICE)).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' }).field('alt', 'x'.repeat(1001));
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([expect.objectContaining({ field: 'alt' })]);
  });
});

describe('HTTP and the local API', () => {
  it('store the same metadata', async () => {
    const http = await request(t.app).post('/api/upload').set(...asUser(ALICE)).attach('file', pngBytes(), { filename: 'dir/same.png', contentType: 'image/png' }).field('alt', 'same').expect(201);
    const local = await t.api.local.upload(Readable.from([pngBytes()]), { filename: 'dir/same.png', mimeType: 'image/png', alt: 'same', user: ALICE });
    const files = connection.db!.collection('uploads.files');
    const [a, b] = await Promise.all([files.findOne({ filename: http.body.filename }), files.findOne({ filename: local.filename })]);
    expect(a!.metadata).toEqual({ originalName: 'same.png', mimeType: 'image/png', alt: 'same', uploadedBy: ALICE.id });
    expect(b!.metadata).toEqual(a!.metadata);
    const { id: _a, filename: _fa, url: _ua, createdAt: _ca, ...shownHttp } = http.body;
    const { id: _b, filename: _fb, url: _ub, createdAt: _cb, ...shownLocal } = local;
    expect(shownLocal).toEqual(shownHttp);
  });

  it('answer the same errors', async () => {
    const cases: Array<{ name: string; bytes: Buffer; type: string; alt?: string; error: new (...args: never[]) => Error; status: number }> = [
      { name: 'lie.png', bytes: Buffer.from('<html></html>'), type: 'image/png', error: UnsupportedMediaTypeError, status: 415 },
      { name: 'a.txt', bytes: Buffer.from('text'), type: 'text/plain', error: ForbiddenError, status: 403 },
      { name: 'a.png', bytes: pngBytes(), type: 'image/png', alt: 'x'.repeat(1001), error: ValidationError, status: 400 },
    ];
    for (const c of cases) {
      let req = request(t.app).post('/api/upload').set(...asUser(ALICE)).attach('file', c.bytes, { filename: c.name, contentType: c.type });
      if (c.alt !== undefined) req = req.field('alt', c.alt);
      const http = await req;
      expect(http.status).toBe(c.status);
      const local = await t.api.local.upload(c.bytes, { filename: c.name, mimeType: c.type, user: ALICE, ...(c.alt === undefined ? {} : { alt: c.alt }) }).then(
        () => undefined,
        (error: unknown) => error as Error & { status: number; code: string; errors?: unknown },
      );
      expect(local).toBeInstanceOf(c.error);
      expect({ status: local!.status, code: local!.code, detail: local!.message, errors: local!.errors }).toEqual({
        status: http.body.status,
        code: http.body.code,
        detail: http.body.detail,
        errors: http.body.errors,
      });
    }
    // Nothing was written (an alt text refused after its file is refused before the file's record).
    expect(gridfsWrites().filter((w) => w.command === 'insert')).toEqual([]);
  });

  it('the local API closes the caller\'s stream whenever it refuses, before reading it or part-way', async () => {
    const unread = Readable.from([pngBytes()]);
    await expect(t.api.local.upload(unread, { filename: 'a.png', mimeType: 'image/png', user: null })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(unread.destroyed).toBe(true);
    const refused = Readable.from([Buffer.from('text')]);
    await expect(t.api.local.upload(refused, { filename: 'a.txt', mimeType: 'text/plain', user: ALICE })).rejects.toBeInstanceOf(ForbiddenError);
    expect(refused.destroyed).toBe(true);
  });

  it('delete alike: the delete rule, a 404 for a file outside it, and the file and its chunks gone', async () => {
    const viaHttp = await t.api.local.upload(pngBytes(), { filename: 'h.png', mimeType: 'image/png', user: ALICE });
    const viaLocal = await t.api.local.upload(pngBytes(), { filename: 'l.png', mimeType: 'image/png', user: ALICE });

    expect((await request(t.app).delete(viaHttp.url).set(...asUser(BOB))).status).toBe(404);
    await expect(t.api.local.deleteUpload(viaLocal.filename, { user: BOB })).rejects.toBeInstanceOf(NotFoundError);
    expect((await request(t.app).delete(viaHttp.url)).status).toBe(401);
    await expect(t.api.local.deleteUpload(viaLocal.filename, { user: null })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.api.local.deleteUpload('nope.png', { user: ALICE })).rejects.toBeInstanceOf(NotFoundError);

    await request(t.app).delete(viaHttp.url).set(...asUser(ALICE)).expect(200, { deleted: true });
    await expect(t.api.local.deleteUpload(viaLocal.filename, { user: ALICE })).resolves.toEqual({ deleted: true });
    const files = connection.db!.collection('uploads.files');
    const chunks = connection.db!.collection('uploads.chunks');
    for (const file of [viaHttp, viaLocal]) {
      expect(await files.countDocuments({ filename: file.filename })).toBe(0);
      expect(await chunks.countDocuments({ files_id: new mongoose.Types.ObjectId(file.id) })).toBe(0);
    }
    // Server code without a user skips the rule, as for records.
    const other = await t.api.local.upload(pngBytes(), { filename: 'o.png', mimeType: 'image/png', user: BOB });
    await expect(t.api.local.deleteUpload(other.filename)).resolves.toEqual({ deleted: true });
    await request(t.app).get(other.url).expect(404);
  });
});
