// How long caches may keep uploaded files, and where a new upload lives. Stored names are never reused, so a
// host may let browsers and CDNs keep files for a long time (`uploads.maxAge`, `uploads.immutable`); files
// whose reads need credentials stay private. POST /upload answers 201 with a Location: the file's URL.
import request from 'supertest';
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { parseUploadsOptions } from '../../lib/uploads/upload-options';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { pngBytes } from './upload-helpers';

const uploadsProblems = (config: ContentConfig) => parseUploadsOptions(config).problems;

const alice = asUser({ id: '000000000000000000000001' });
const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((t) => t.close())));

async function appWith(uploads: ContentConfig['uploads']): Promise<TestApp> {
  const t = await createTestApp({ uploads });
  apps.push(t);
  return t;
}

async function served(t: TestApp): Promise<request.Response> {
  const created = await request(t.app).post('/api/upload').set(...alice).attach('file', pngBytes(), { filename: 'logo.png', contentType: 'image/png' }).expect(201);
  expect(created.headers.location).toBe(created.body.url);
  return request(t.app).get(created.body.url).set(...alice).expect(200);
}

it('answers POST /upload with Location: the file’s URL, as the body’s url', async () => {
  const t = await appWith({});
  const created = await request(t.app).post('/api/upload').set(...alice).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' }).expect(201);
  expect(created.headers.location).toBe(`/api/uploads/${created.body.filename}`);
  expect(created.headers.location).toBe(created.body.url);
});

it('serves files public, no-cache by default, and private when reads need credentials', async () => {
  expect((await served(await appWith({}))).headers['cache-control']).toBe('public, no-cache');
  expect((await served(await appWith({ access: { read: ({ user }) => user !== null } }))).headers['cache-control']).toBe('private, no-cache');
});

it('serves them for uploads.maxAge seconds, immutable on request, and keeps private files private', async () => {
  expect((await served(await appWith({ maxAge: 31536000, immutable: true }))).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect((await served(await appWith({ maxAge: 3600 }))).headers['cache-control']).toBe('public, max-age=3600');
  const privateOnes = await appWith({ maxAge: 600, immutable: true, access: { read: ({ user }) => user !== null } });
  expect((await served(privateOnes)).headers['cache-control']).toBe('private, max-age=600, immutable');
});

it.each([
  ['a negative maxAge', { maxAge: -1 }, 'uploads.maxAge: must be a whole number of seconds from 0 to 31536000'],
  ['a fractional maxAge', { maxAge: 1.5 }, 'uploads.maxAge: must be a whole number of seconds'],
  ['a maxAge over a year', { maxAge: 31536001 }, 'uploads.maxAge: must be a whole number of seconds from 0 to 31536000'],
  ['a maxAge as text', { maxAge: '1y' }, 'uploads.maxAge: must be a whole number of seconds'],
  ['immutable not a boolean', { maxAge: 60, immutable: 'yes' }, 'uploads.immutable: must be a boolean'],
  ['immutable without maxAge', { immutable: true }, 'uploads.immutable: needs uploads.maxAge'],
])('refuses %s with a ConfigError naming it', (_name, uploads, problem) => {
  expect(uploadsProblems({ db, uploads } as unknown as ContentConfig)).toEqual([expect.stringContaining(problem)]);
  expect(() => contentRouter({ db, uploads } as unknown as ContentConfig)).toThrow(ConfigError);
});
