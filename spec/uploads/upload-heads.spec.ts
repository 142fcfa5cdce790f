// Truncated and corrupt files of every format the type check knows, through POST /upload and api.local.upload:
// each is stored or refused with a 415 problem (never a 500), and a refused one leaves nothing in GridFS.
import { fromBuffer } from 'file-type';
import request from 'supertest';
import { UnsupportedMediaTypeError } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { CORRUPT_MATROSKA, FILE_HEADS, type HeadVariant, variantsOf } from './file-heads';
import { countStored } from './upload-helpers';

const alice = asUser({ id: '000000000000000000000001' });
const CUT_SHORT = /cut short or corrupt/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// Hundreds of small uploads; the machine running the suite may be busy.
jest.setTimeout(180_000);

let t: TestApp;
const logged: unknown[][] = [];

beforeAll(async () => {
  t = await createTestApp({ uploads: {}, logger: { error: (...args) => logged.push(args), warn: () => undefined } });
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(logged).toEqual([]);
});

/** Each format's head cut at one and two bytes, at half and one short of its length, whole, and corrupt; plus a corrupt Matroska head. */
function table(): Array<{ mimeType: string } & HeadVariant> {
  const files = [...FILE_HEADS, CORRUPT_MATROSKA];
  return files.flatMap((file) => {
    const length = file.head.length;
    return variantsOf(file, [1, 2, Math.floor(length / 2), length - 1]).map((variant) => ({ mimeType: file.mimeType, ...variant }));
  });
}

const detectorFails = (bytes: Buffer) => fromBuffer(bytes).then(() => false, () => true);

it('answers a PNG cut after its signature with a 415 saying so, and stores nothing', async () => {
  const before = await countStored(t.connection);
  const res = await request(t.app).post('/api/upload').set(...alice).attach('file', PNG_SIGNATURE, { filename: 'cut.png', contentType: 'image/png' });
  expect(res.status).toBe(415);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(res.body).toMatchObject({ status: 415, code: 'unsupported_media_type', detail: expect.stringMatching(CUT_SHORT) });
  await expect(t.api.local.upload(PNG_SIGNATURE, { filename: 'cut.png', mimeType: 'image/png' })).rejects.toThrow(CUT_SHORT);
  expect(await countStored(t.connection)).toEqual(before);
});

it('stores or refuses with a 415 every cut and corrupt head over HTTP, declared as its format', async () => {
  const before = await countStored(t.connection);
  let stored = 0;
  for (const { name, mimeType, bytes } of table()) {
    const res = await request(t.app).post('/api/upload').set(...alice).attach('file', bytes, { filename: `${name}.bin`, contentType: mimeType });
    const failing = await detectorFails(bytes);
    if (res.status === 201) {
      expect({ name, failing }).toEqual({ name, failing: false });
      stored += 1;
    } else {
      expect({ name, status: res.status, type: res.headers['content-type'], code: res.body.code }).toEqual({
        name,
        status: 415,
        type: expect.stringMatching(/application\/problem\+json/),
        code: 'unsupported_media_type',
      });
      if (failing) expect({ name, detail: res.body.detail }).toEqual({ name, detail: expect.stringMatching(CUT_SHORT) });
    }
  }
  const now = await countStored(t.connection);
  // Every head is under a chunk: one file and one chunk per stored upload, nothing for a refused one.
  expect(now).toEqual({ files: before.files + stored, chunks: before.chunks + stored });
});

it('stores or refuses with UnsupportedMediaTypeError every cut and corrupt head through api.local.upload, declared or not', async () => {
  const before = await countStored(t.connection);
  let stored = 0;
  for (const { name, mimeType, bytes } of table()) {
    const failing = await detectorFails(bytes);
    for (const declared of [mimeType, undefined]) {
      const outcome = await t.api.local.upload(bytes, { filename: `${name}.bin`, mimeType: declared }).then(
        () => 'stored',
        (error: unknown) => error,
      );
      if (outcome === 'stored') {
        expect({ name, declared, failing }).toEqual({ name, declared, failing: false });
        stored += 1;
      } else {
        expect({ name, declared, error: outcome }).toEqual({ name, declared, error: expect.any(UnsupportedMediaTypeError) });
        if (failing) expect((outcome as Error).message).toMatch(CUT_SHORT);
      }
    }
  }
  expect(await countStored(t.connection)).toEqual({ files: before.files + stored, chunks: before.chunks + stored });
});
