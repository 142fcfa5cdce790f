// The type check on hostile first bytes, without a database: every cut and corruption of every format the
// detector knows is a stored type or a 415 (a truncated head of a known format is a 415 saying so), and no
// head can make the detector loop forever.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fromBuffer, mimeTypes } from 'file-type';
import { UnsupportedMediaTypeError } from '../../lib';
import { detectMimeType } from '../../lib/uploads/mime-policy';
import { CORRUPT_MATROSKA, FILE_HEADS, type HeadVariant, variantsOf } from './file-heads';

const CUT_SHORT = /cut short or corrupt/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The check's answer: the stored type, or the 415's detail; anything else thrown fails the test. */
async function outcome(bytes: Buffer, declared: string | undefined): Promise<{ stored: string } | { refused: string }> {
  try {
    return { stored: (await detectMimeType(bytes, declared)).mimeType };
  } catch (error) {
    if (error instanceof UnsupportedMediaTypeError) return { refused: error.message };
    throw error;
  }
}

/** True when file-type itself rejects on these bytes (the cases the check must answer as cut short). */
const detectorFails = (bytes: Buffer) => fromBuffer(bytes).then(() => false, () => true);

it('answers a PNG cut after its signature with a 415 saying it is cut short, declared or not', async () => {
  for (const declared of ['image/png', 'application/octet-stream', undefined]) {
    const refused = await detectMimeType(PNG_SIGNATURE, declared).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnsupportedMediaTypeError);
    expect((refused as UnsupportedMediaTypeError).status).toBe(415);
    expect((refused as Error).message).toMatch(CUT_SHORT);
  }
});

it('knows a head for every format file-type v16 detects, and stores each whole head as its type', async () => {
  expect(new Set(FILE_HEADS.map((f) => f.mimeType))).toEqual(new Set(mimeTypes));
  for (const file of FILE_HEADS) {
    // MIME types are case-insensitive: file-type's `video/MP1S` is stored as declared names are, lowercased.
    expect(await outcome(file.head, file.mimeType)).toEqual({ stored: file.mimeType.toLowerCase() });
  }
});

it('answers every cut and corruption of every known format with a stored type or a 415', async () => {
  let cutShort = 0;
  for (const file of FILE_HEADS) {
    // Every length, from one byte to one short of the whole head.
    const variants: HeadVariant[] = variantsOf(file, Array.from(file.head, (_, i) => i));
    for (const { name, bytes } of variants) {
      const failing = await detectorFails(bytes);
      for (const declared of [file.mimeType, undefined]) {
        const answer = await outcome(bytes, declared);
        if (failing) {
          expect({ name, declared, answer }).toEqual({ name, declared, answer: { refused: expect.stringMatching(CUT_SHORT) } });
          cutShort += 1;
        }
      }
    }
  }
  // The table does reach the parser's failures (the PNG signature alone is one of them).
  expect(cutShort).toBeGreaterThan(100);
});

it('answers a corrupt head the parser throws a RangeError on with a 415', async () => {
  await expect(fromBuffer(CORRUPT_MATROSKA.head)).rejects.toMatchObject({ name: 'RangeError' });
  expect(await outcome(CORRUPT_MATROSKA.head, 'video/x-matroska')).toEqual({ refused: expect.stringMatching(CUT_SHORT) });
});

it('answers an ASF header whose object is smaller than its own header instead of looping forever', () => {
  // file-type 16 walks ASF objects backwards forever on such a size (fixed upstream in v21.3.1), blocking the event
  // loop, so the check runs in a child process that a timeout can stop.
  const asf = Buffer.concat([Buffer.from('3026b2758e66cf11a6d900aa0062ce6c', 'hex'), Buffer.alloc(14), Buffer.alloc(32)]);
  const script = `
    const { createJiti } = require('jiti');
    const jiti = createJiti(${JSON.stringify(__filename)});
    jiti.import(${JSON.stringify(path.resolve(__dirname, '../../lib/uploads/mime-policy.ts'))})
      .then(({ detectMimeType }) => detectMimeType(Buffer.from(${JSON.stringify(asf.toString('hex'))}, 'hex'), undefined))
      .then((type) => console.log(JSON.stringify({ stored: type.mimeType })));`;
  const run = () => execFileSync(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../..'), timeout: 20_000, encoding: 'utf8' });
  expect(JSON.parse(run())).toEqual({ stored: 'application/vnd.ms-asf' });
});
