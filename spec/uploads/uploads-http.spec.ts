// POST /upload, GET|HEAD|DELETE /uploads/:filename end to end: the stored record, byte-for-byte serving with
// validators, ranges and safe headers, and every bad input (size, type, lying type, missing or extra parts,
// path-laden names, unknown files, anonymous callers) answered as problem+json with nothing left in GridFS.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { countStored, jpegBytes, pngBytes } from './upload-helpers';

const PROBLEM = /application\/problem\+json/;
const alice = asUser({ id: '000000000000000000000001' });
const STORED = /^[0-9a-f]{32}(\.[a-z0-9]{1,10})?$/;

// The machine running the suite may be busy; these tests stream real files.
jest.setTimeout(60_000);

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    collections: [{ slug: 'notes', fields: { title: { type: 'text' } } }],
    uploads: { maxFileSize: 64 * 1024 },
  });
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

const upload = (bytes: Buffer, name: string, type: string) =>
  request(t.app).post('/api/upload').set(...alice).attach('file', bytes, { filename: name, contentType: type });

/** Stored files and chunks now, minus `before`. */
async function storedSince(before: { files: number; chunks: number }) {
  const now = await countStored(t.connection);
  return { files: now.files - before.files, chunks: now.chunks - before.chunks };
}

describe('POST /upload', () => {
  it('stores a file and answers 201 with its record; GET serves the same bytes with validators and nosniff', async () => {
    const png = pngBytes();
    const res = await upload(png, 'logo.png', 'image/png').field('alt', 'Our logo').expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      filename: expect.stringMatching(/^[0-9a-f]{32}\.png$/),
      originalName: 'logo.png',
      mimeType: 'image/png',
      size: png.length,
      url: `/api/uploads/${res.body.filename}`,
      alt: 'Our logo',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const file = await request(t.app).get(res.body.url).buffer(true).parse(binary).expect(200);
    expect(Buffer.compare(file.body as Buffer, png)).toBe(0);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['content-length']).toBe(String(png.length));
    expect(file.headers.etag).toBe(`"${res.body.id}"`);
    expect(new Date(file.headers['last-modified']).getTime()).toBe(Math.floor(Date.parse(res.body.createdAt) / 1000) * 1000);
    expect(file.headers['accept-ranges']).toBe('bytes');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.headers['content-disposition']).toBeUndefined();
    expect(file.headers['content-security-policy']).toBeUndefined();
  });

  it('keeps the alt text when it comes after the file in the body', async () => {
    const res = await request(t.app)
      .post('/api/upload')
      .set(...alice)
      .attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' })
      .field('alt', 'after')
      .expect(201);
    expect(res.body.alt).toBe('after');
  });

  it('stores a name with path parts, `..` and control characters safely', async () => {
    const res = await request(t.app)
      .post('/api/upload')
      .set(...alice)
      // The part header written by hand: an RFC 5987 name may carry any byte, control characters included.
      .set('Content-Type', 'multipart/form-data; boundary=XyZ')
      .send(
        "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename*=UTF-8''..%5C..%5Cwin%5C%07evil%01%E2%80%AE.txt\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XyZ--\r\n",
      )
      .expect(201);
    expect(res.body.filename).toMatch(STORED);
    expect(res.body.originalName).toBe('evil.txt');
    const dots = await upload(Buffer.from('x'), '...', 'text/plain').expect(201);
    expect(dots.body.originalName).toBe('file');
    expect(dots.body.filename).toMatch(STORED);
    // A part named `..` names no file at all (busboy drops it): the upload has no file.
    const parent = await upload(Buffer.from('x'), '..', 'text/plain').expect(400);
    expect(parent.body.errors[0]).toMatchObject({ field: 'file', code: 'required' });
  });

  it('keeps a non-ASCII name sent as UTF-8 bytes (as browsers send it) or as an RFC 5987 filename*', async () => {
    const cases: Array<[string, string]> = [
      ['filename="café.txt"', 'café.txt'],
      ['filename="日本語 ü.txt"', '日本語 ü.txt'],
      ["filename*=UTF-8''caf%C3%A9%20%E2%82%AC.txt", 'café €.txt'],
      ["filename=\"naive.txt\"; filename*=UTF-8''na%C3%AFve.txt", 'naïve.txt'],
    ];
    for (const [disposition, name] of cases) {
      const body = Buffer.concat([
        Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; '),
        Buffer.from(disposition, 'utf8'),
        Buffer.from('\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XyZ--\r\n'),
      ]);
      const res = await request(t.app).post('/api/upload').set(...alice).set('Content-Type', 'multipart/form-data; boundary=XyZ').send(body).expect(201);
      expect(res.body.originalName).toBe(name);
      const stored = await t.connection.db!.collection('uploads.files').findOne({ filename: res.body.filename });
      expect(stored?.metadata?.originalName).toBe(name);
    }
  });

  it('answers 413 for a file over maxFileSize and keeps no file and no chunk of it', async () => {
    const before = await countStored(t.connection);
    const res = await upload(jpegBytes(200 * 1024), 'big.jpg', 'image/jpeg').expect(413);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(await storedSince(before)).toEqual({ files: 0, chunks: 0 });
  });

  it('answers 415 for a type that lies about itself, and stores nothing', async () => {
    const before = await countStored(t.connection);
    const html = Buffer.from('<html><script>alert(1)</script></html>');
    const lies: Array<[Buffer, string, string]> = [
      [html, 'cat.png', 'image/png'], // no PNG signature at all
      [pngBytes(), 'photo.jpg', 'image/jpeg'], // a PNG claiming to be a JPEG
      [Buffer.from([0x00, 0x01, 0x02, 0x00, 0xff]), 'notes.txt', 'text/plain; charset=utf-8'], // binary claiming to be text
    ];
    for (const [bytes, name, type] of lies) {
      const res = await upload(bytes, name, type).expect(415);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.code).toBe('unsupported_media_type');
    }
    expect(await storedSince(before)).toEqual({ files: 0, chunks: 0 });
  });

  it('stores the type the bytes show when the client declares none, and serves active types as sandboxed attachments', async () => {
    const generic = await upload(pngBytes(), 'blob', 'application/octet-stream').expect(201);
    expect(generic.body.mimeType).toBe('image/png');
    expect(generic.body.filename).toMatch(/\.png$/);

    for (const [name, type, bytes] of [
      ['page.html', 'text/html', '<html><body>hi</body></html>'],
      ['icon.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ]) {
      const res = await upload(Buffer.from(bytes), name, type).expect(201);
      expect(res.body.mimeType).toBe(type);
      const served = await request(t.app).get(res.body.url).buffer(true).parse(binary).expect(200);
      expect(served.headers['content-type']).toMatch(new RegExp(`^${type.replace('+', '\\+')}`));
      expect(served.headers['content-disposition']).toMatch(/^attachment; filename=/);
      expect(served.headers['content-disposition']).toContain(name);
      expect(served.headers['content-security-policy']).toBe('sandbox');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect((served.body as Buffer).toString()).toBe(bytes);
    }
  });

  it('answers 400 without a file, with two files, or with an unknown field, and stores nothing', async () => {
    const before = await countStored(t.connection);
    const none = await request(t.app).post('/api/upload').set(...alice).field('alt', 'x').expect(400);
    expect(none.headers['content-type']).toMatch(PROBLEM);
    expect(none.body.errors).toEqual([expect.objectContaining({ field: 'file', code: 'required' })]);

    const two = await request(t.app)
      .post('/api/upload')
      .set(...alice)
      .attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' })
      .attach('file', pngBytes(), { filename: 'b.png', contentType: 'image/png' })
      .expect(400);
    expect(two.body.errors[0]).toMatchObject({ field: 'file', code: 'unexpected_file' });

    const otherField = await request(t.app)
      .post('/api/upload')
      .set(...alice)
      .attach('document', pngBytes(), { filename: 'a.png', contentType: 'image/png' })
      .expect(400);
    expect(otherField.body.errors[0]).toMatchObject({ field: 'document', code: 'unexpected_file' });

    const extra = await upload(pngBytes(), 'a.png', 'image/png').field('owner', 'me').expect(400);
    expect(extra.body.errors).toEqual([expect.objectContaining({ field: 'owner', code: 'unknown_field' })]);

    const longAlt = await upload(pngBytes(), 'a.png', 'image/png').field('alt', 'x'.repeat(1001)).expect(400);
    expect(longAlt.body.errors[0]).toMatchObject({ field: 'alt' });
    expect(await storedSince(before)).toEqual({ files: 0, chunks: 0 });
  });

  it('answers 415 for a body that is not multipart and 400 for a malformed one', async () => {
    const json = await request(t.app).post('/api/upload').set(...alice).send({ file: 'x' }).expect(415);
    expect(json.headers['content-type']).toMatch(PROBLEM);
    const cut = await request(t.app)
      .post('/api/upload')
      .set(...alice)
      .set('Content-Type', 'multipart/form-data; boundary=XyZ')
      .send('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello')
      .expect(400);
    expect(cut.headers['content-type']).toMatch(PROBLEM);
  });

  it('answers 401 to an anonymous upload, before storing anything', async () => {
    const before = await countStored(t.connection);
    const res = await request(t.app).post('/api/upload').attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' }).expect(401);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    // No auth collection and no docs.securitySchemes: the router names no scheme it does not accept.
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(await storedSince(before)).toEqual({ files: 0, chunks: 0 });
  });
});

describe('GET|HEAD /uploads/:filename', () => {
  let url: string;
  let id: string;
  const bytes = Buffer.concat([pngBytes(), Buffer.from('0123456789')]);

  beforeAll(async () => {
    const res = await upload(bytes, 'range.png', 'image/png').expect(201);
    url = res.body.url;
    id = res.body.id;
  });

  it('HEAD answers the headers without a body', async () => {
    const res = await request(t.app).head(url).expect(200);
    expect(res.headers['content-length']).toBe(String(bytes.length));
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers.etag).toBe(`"${id}"`);
    expect(res.text ?? '').toBe('');
  });

  it('answers a single range with 206 and exactly those bytes', async () => {
    const res = await request(t.app).get(url).set('Range', 'bytes=2-9').buffer(true).parse(binary).expect(206);
    expect(res.headers['content-range']).toBe(`bytes 2-9/${bytes.length}`);
    expect(res.headers['content-length']).toBe('8');
    expect(Buffer.compare(res.body as Buffer, bytes.subarray(2, 10))).toBe(0);
    const suffix = await request(t.app).get(url).set('Range', 'bytes=-4').buffer(true).parse(binary).expect(206);
    expect((suffix.body as Buffer).toString()).toBe('6789');
  });

  it('answers 416 with the size for a range outside the file', async () => {
    const res = await request(t.app).get(url).set('Range', `bytes=${bytes.length + 10}-${bytes.length + 20}`).expect(416);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.headers['content-range']).toBe(`bytes */${bytes.length}`);
    expect(res.body.code).toBe('range_not_satisfiable');
  });

  it('ignores a Range for another version (If-Range) and a malformed one', async () => {
    const other = await request(t.app).get(url).set('Range', 'bytes=0-1').set('If-Range', '"nope"').buffer(true).parse(binary).expect(200);
    expect((other.body as Buffer).length).toBe(bytes.length);
    await request(t.app).get(url).set('Range', 'bytes=abc').expect(200);
  });

  it('answers 304 to If-None-Match and If-Modified-Since', async () => {
    const first = await request(t.app).get(url).expect(200);
    const etag = await request(t.app).get(url).set('If-None-Match', first.headers.etag).expect(304);
    expect(etag.headers.etag).toBe(first.headers.etag);
    await request(t.app).get(url).set('If-Modified-Since', first.headers['last-modified']).expect(304);
    await request(t.app).get(url).set('If-None-Match', '"other"').expect(200);
  });

  it('answers 404 for an unknown file or a name that could not be stored', async () => {
    for (const name of ['0123456789abcdef0123456789abcdef.png', '..%2F..%2Fetc%2Fpasswd', 'nope']) {
      const res = await request(t.app).get(`/api/uploads/${name}`).expect(404);
      expect(res.headers['content-type']).toMatch(PROBLEM);
    }
  });
});

describe('DELETE /uploads/:filename', () => {
  it('removes the file and its chunks; anonymous callers get 401 and unknown files 404', async () => {
    const res = await upload(jpegBytes(40 * 1024), 'gone.jpg', 'image/jpeg').expect(201);
    const files = t.connection.db!.collection('uploads.files');
    const chunks = t.connection.db!.collection('uploads.chunks');
    const id = (await files.findOne({ filename: res.body.filename }))!._id;
    expect(await chunks.countDocuments({ files_id: id })).toBeGreaterThan(0);

    await request(t.app).delete(res.body.url).expect(401);
    const deleted = await request(t.app).delete(res.body.url).set(...alice).expect(200);
    expect(deleted.body).toEqual({ deleted: true });
    expect(await files.countDocuments({ _id: id })).toBe(0);
    expect(await chunks.countDocuments({ files_id: id })).toBe(0);
    await request(t.app).get(res.body.url).expect(404);
    await request(t.app).delete(res.body.url).set(...alice).expect(404);
  });

  it('answers 405 with Allow for another method on a file', async () => {
    const res = await request(t.app).put('/api/uploads/0123456789abcdef0123456789abcdef').set(...alice).expect(405);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD');
  });
});

/** supertest parser that keeps the body as bytes. */
function binary(res: unknown, callback: (error: Error | null, body: Buffer) => void): void {
  const parts: Buffer[] = [];
  const stream = res as NodeJS.ReadableStream;
  stream.on('data', (chunk: Buffer) => parts.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(parts)));
}

describe('under Express 4', () => {
  it('uploads, serves ranges, 304s and active types the same way', async () => {
    const { default: express4 } = await import('express4');
    const { contentRouter } = await import('../../lib');
    const api = contentRouter({ db: { connection: t.connection }, uploads: { bucket: 'express4' }, logger: { error: () => undefined, warn: () => undefined } });
    await api.ready;
    const app = express4();
    app.use((req, _res, next) => {
      (req as unknown as { user: unknown }).user = { id: '000000000000000000000001' };
      next();
    });
    app.use('/files', api as unknown as import('express4').RequestHandler);
    try {
      const png = pngBytes();
      const created = await request(app).post('/files/upload').attach('file', png, { filename: 'e4.png', contentType: 'image/png' }).expect(201);
      expect(created.body.url).toBe(`/files/uploads/${created.body.filename}`);
      const whole = await request(app).get(created.body.url).buffer(true).parse(binary).expect(200);
      expect(Buffer.compare(whole.body as Buffer, png)).toBe(0);
      const part = await request(app).get(created.body.url).set('Range', 'bytes=0-7').buffer(true).parse(binary).expect(206);
      expect(Buffer.compare(part.body as Buffer, png.subarray(0, 8))).toBe(0);
      await request(app).get(created.body.url).set('Range', 'bytes=5000-6000').expect(416);
      await request(app).get(created.body.url).set('If-None-Match', whole.headers.etag).expect(304);
      const html = await request(app).post('/files/upload').attach('file', Buffer.from('<p>hi</p>'), { filename: 'p.html', contentType: 'text/html' }).expect(201);
      const served = await request(app).get(html.body.url).expect(200);
      expect(served.headers['content-type']).toMatch(/^text\/html/);
      expect(served.headers['content-disposition']).toMatch(/^attachment/);
      expect(served.headers['content-security-policy']).toBe('sandbox');
      expect((await request(app).delete(created.body.url)).body).toEqual({ deleted: true });
    } finally {
      await api.close();
    }
  });
});
