// Uploads over a real socket: a 50 MB file streamed up and down (compared by sha256, never held whole),
// a client that disconnects mid-upload (its chunks are removed, the host keeps serving), and an oversize
// file cut off while streaming.
import type http from 'node:http';
import request from 'supertest';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { quietFor, until } from '../helpers/eventually';
import { countStored, downloadHash, pngBytes, startRawUpload, writeRandom } from './upload-helpers';
import { closeServer, listen } from '../realtime/realtime-clients';

const USER = JSON.stringify({ id: '000000000000000000000001' });
const MB = 1024 * 1024;
const BUCKET = 'media';

jest.setTimeout(180_000);

let t: TestApp;
let server: http.Server;
/** What the router logged, by level. */
const logged: Record<'error' | 'warn' | 'debug', unknown[][]> = { error: [], warn: [], debug: [] };

beforeAll(async () => {
  const logger = {
    error: (...args: unknown[]) => logged.error.push(args),
    warn: (...args: unknown[]) => logged.warn.push(args),
    debug: (...args: unknown[]) => logged.debug.push(args),
  };
  t = await createTestApp({ uploads: { bucket: BUCKET, maxFileSize: 60 * MB }, logger });
  server = await listen(t.app);
});
afterAll(async () => {
  await closeServer(server);
  await t.close();
});

it('streams a 50 MB file up and down byte for byte', async () => {
  const size = 50 * MB;
  const upload = startRawUpload(server, '/api/upload', { name: 'big.bin', type: 'application/octet-stream' }, { 'X-Test-User': USER });
  const sent = await writeRandom(upload.req, size);
  const res = await upload.finish();
  expect(res.status).toBe(201);
  const record = JSON.parse(res.body);
  expect(record).toMatchObject({ size, mimeType: 'application/octet-stream', originalName: 'big.bin' });
  expect(await countStored(t.connection, BUCKET)).toEqual({ files: 1, chunks: Math.ceil(size / (255 * 1024)) });

  const got = await downloadHash(server, record.url);
  expect(got.status).toBe(200);
  expect(got.headers['content-length']).toBe(String(size));
  expect(got.size).toBe(size);
  expect(got.sha256).toBe(sent);

  await request(t.app).delete(record.url).set('X-Test-User', USER).expect(200);
  expect(await countStored(t.connection, BUCKET)).toEqual({ files: 0, chunks: 0 });
});

it('removes every chunk of an upload whose client disconnects, logs it at debug level only, and keeps serving', async () => {
  const upload = startRawUpload(server, '/api/upload', { name: 'cut.bin', type: 'application/octet-stream' }, { 'X-Test-User': USER });
  upload.req.on('error', () => undefined);
  upload.response.catch(() => undefined);
  await writeRandom(upload.req, 4 * MB);
  // Chunks are being written: the upload is really under way when the client goes.
  await until(async () => (await countStored(t.connection, BUCKET)).chunks > 0, 15_000, 'a stored chunk');
  upload.req.destroy();

  await until(async () => {
    const { files, chunks } = await countStored(t.connection, BUCKET);
    return files === 0 && chunks === 0;
  }, 15_000, 'the upload removed');
  // Still nothing a moment later: no chunk write in flight landed after the cleanup.
  await quietFor(300);
  expect(await countStored(t.connection, BUCKET)).toEqual({ files: 0, chunks: 0 });
  // A client that goes is the client's event, not a server error.
  expect(logged.error).toEqual([]);
  expect(logged.warn).toEqual([]);
  expect(logged.debug).toEqual([[expect.stringMatching(/^content-router: POST \/api\/upload: the client closed the connection before the request ended/)]]);

  const after = await request(server).post('/api/upload').set('X-Test-User', USER).attach('file', pngBytes(), { filename: 'ok.png', contentType: 'image/png' });
  expect(after.status).toBe(201);
  await request(t.app).delete(after.body.url).set('X-Test-User', USER).expect(200);
  expect(t.hostErrors).toEqual([]);
});

it('stops an oversize file while it streams: 413, nothing stored', async () => {
  const upload = startRawUpload(server, '/api/upload', { name: 'huge.bin', type: 'application/octet-stream' }, { 'X-Test-User': USER });
  upload.req.on('error', () => undefined);
  await writeRandom(upload.req, 61 * MB);
  const res = await upload.finish();
  expect(res.status).toBe(413);
  expect(JSON.parse(res.body)).toMatchObject({ status: 413, code: 'payload_too_large' });
  expect(await countStored(t.connection, BUCKET)).toEqual({ files: 0, chunks: 0 });
});
