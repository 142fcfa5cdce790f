// A file anyone may read is the same bytes for every caller, so its answer does not vary on the headers
// that carry credentials: `Vary: Cookie` on a `public, max-age=..., immutable` file would keep CDNs from
// sharing it (some do not cache an answer varying on anything but Accept-Encoding, others keep one copy per
// session cookie). Files whose reads need credentials still vary on them.
import request from 'supertest';
import type { ContentConfig } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { pngBytes } from './upload-helpers';

const alice = asUser({ id: '000000000000000000000001' });
const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((t) => t.close())));

async function servedFile(uploads: ContentConfig['uploads'], as: [string, string] | undefined): Promise<request.Response> {
  const t = await createTestApp({ uploads });
  apps.push(t);
  const created = await request(t.app).post('/api/upload').set(...alice).attach('file', pngBytes(), { filename: 'logo.png', contentType: 'image/png' }).expect(201);
  const get = request(t.app).get(created.body.url);
  return (as ? get.set(...as) : get).expect(200);
}

it('serves a file anyone may read without Vary on credentials, to anonymous and signed-in callers alike', async () => {
  for (const as of [undefined, alice]) {
    const res = await servedFile({ maxAge: 31536000, immutable: true }, as);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary ?? '').not.toMatch(/cookie|authorization|x-api-key/i);
  }
});

it('still varies on credentials for a file whose reads need them', async () => {
  const res = await servedFile({ access: { read: ({ user }) => user !== null } }, alice);
  expect(res.headers.vary).toMatch(/Cookie/);
});
