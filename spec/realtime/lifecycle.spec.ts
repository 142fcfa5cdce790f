// Realtime and the router's lifecycle: api.close() ends every stream and socket and unhooks upgrades;
// with realtime off there is no /sse, no /ws and attach hooks nothing.
import request from 'supertest';
import { createTestApp } from '../helpers/create-test-app';
import { closeServer, listen, openSse, openWs } from './realtime-clients';
import { createRealtimeTestApp } from './realtime-test-app';

// Real sockets and a shared, busy machine: more than jest's default 5 s per test.
jest.setTimeout(30_000);

describe('realtime lifecycle', () => {
  it('api.close() ends open SSE streams and WebSockets and removes its upgrade listener', async () => {
    const t = await createRealtimeTestApp();
    try {
      const before = t.server.listenerCount('upgrade');
      t.api.attach(t.server); // idempotent
      expect(t.server.listenerCount('upgrade')).toBe(before);
      const stream = await openSse(t.server, '/api/sse?collections=open');
      const socket = await openWs(t.server, '/api/ws');
      expect(t.api.realtime?.stats()).toEqual({ sse: 1, ws: 1 });
      await t.api.close();
      await stream.ended;
      await socket.closed;
      expect(t.api.realtime?.stats()).toEqual({ sse: 0, ws: 0 });
      expect(t.server.listenerCount('upgrade')).toBe(before - 1);
    } finally {
      await t.close();
    }
  });

  it('serves no /sse or /ws when realtime is off, and attach hooks nothing', async () => {
    const t = await createTestApp({ realtime: false, collections: [{ slug: 'open', fields: { name: { type: 'text' } } }] });
    const server = await listen(t.app);
    try {
      t.api.attach(server);
      expect(server.listenerCount('upgrade')).toBe(0);
      expect((await request(t.app).get('/api/sse?collections=open')).status).toBe(404);
      expect((await request(t.app).get('/api/ws')).status).toBe(404);
      expect(t.api.realtime).toBeUndefined();
    } finally {
      await t.close();
      await closeServer(server);
    }
  });
});
