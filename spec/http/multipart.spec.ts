// The one multipart reader behind POST /upload and custom endpoints with file properties: the same body
// over the same limit gets the same status on both routes (413 for every limit on how much a form holds,
// 400 for a form of the wrong shape or one that does not parse), as problem+json.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { countStored, pngBytes } from '../uploads/upload-helpers';

const PROBLEM = /application\/problem\+json/;
const alice = asUser({ id: '000000000000000000000001' });

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    uploads: { maxFileSize: 1024 },
    endpoints: [
      {
        path: '/forms',
        method: 'post',
        schema: { name: 'NoteForm', body: { properties: { note: { type: 'string' }, file: { type: 'file', maxSize: 1024 } } } },
        handler: ({ body }) => ({ received: Object.keys(body as object).sort() }),
      },
    ],
  });
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

/** The same form sent to both routes: the upload's text field is `alt`, the endpoint's `note`. */
const routes: Array<[string, string, string]> = [
  ['POST /upload', '/api/upload', 'alt'],
  ['a custom endpoint', '/api/forms', 'note'],
];

describe.each(routes)('%s', (_name, path, text) => {
  const post = () => request(t.app).post(path).set(...alice);

  it('answers 413 for a file over its limit', async () => {
    const res = await post().attach('file', Buffer.alloc(4096, 1), { filename: 'big.bin', contentType: 'application/octet-stream' });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('answers 413 for a text field longer than the form takes', async () => {
    const res = await post().field(text, 'x'.repeat(2 * 1024 * 1024)).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large', detail: expect.stringContaining(`"${text}"`) });
  });

  it('answers 413 for more fields or parts than the form takes', async () => {
    let fields = post();
    for (let i = 0; i < 40; i++) fields = fields.field(`f${i}`, 'x');
    const res = await fields;
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('answers 400 naming the field for a second file, or a file where the form takes none', async () => {
    const two = await post()
      .attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' })
      .attach('file', pngBytes(), { filename: 'b.png', contentType: 'image/png' });
    expect(two.status).toBe(400);
    expect(two.body.errors).toEqual([expect.objectContaining({ field: 'file', code: 'unexpected_file' })]);
    const misplaced = await post().attach(text, pngBytes(), { filename: 'a.png', contentType: 'image/png' });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.errors).toEqual([expect.objectContaining({ field: text, code: 'unexpected_file' })]);
  });

  it('answers 400 malformed_body for a form that does not parse, wherever it breaks off', async () => {
    const bodies = [
      // No boundary at all.
      ['multipart/form-data', 'x'],
      // Cut off inside the file's bytes.
      ['multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello'],
      // Cut off inside a part's headers.
      ['multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-da'],
    ];
    for (const [type, body] of bodies) {
      const res = await post().set('Content-Type', type).send(body);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.code).toBe('malformed_body');
    }
  });

  it('answers 415 for a body of another type', async () => {
    const res = await post().send({ [text]: 'x' });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });
});

it('stores nothing for any of these refusals', async () => {
  expect(await countStored(t.connection)).toEqual({ files: 0, chunks: 0 });
});
