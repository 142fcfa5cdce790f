// What a WebSocket connection must not keep alive: the response object its upgrade was dressed with.
import { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openWs } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(60_000);

// A full collection on demand, so what is still referenced can be told from what merely was.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function collect(): Promise<void> {
  // Let pending callbacks settle, then collect twice (the first may leave weakly held objects behind).
  await new Promise((resolve) => setTimeout(resolve, 200));
  gc();
  gc();
}

let t: RealtimeTestApp;

beforeAll(async () => {
  t = await createRealtimeTestApp();
});
afterAll(() => t.close());

describe('realtime client memory', () => {
  it('a WebSocket connection does not keep the response its upgrade request was dressed with', async () => {
    // Every response made while the client connects; the upgrade path makes one to answer a refusal with.
    const made: WeakRef<ServerResponse>[] = [];
    const original = ServerResponse.prototype.assignSocket;
    ServerResponse.prototype.assignSocket = function assignSocket(this: ServerResponse, socket) {
      made.push(new WeakRef(this));
      return original.call(this, socket);
    };
    let client;
    try {
      client = await openWs(t.server, '/api/ws');
    } finally {
      ServerResponse.prototype.assignSocket = original;
    }
    try {
      client.send({ type: 'subscribe', collections: ['open'] });
      await client.next((m) => m.type === 'subscribed');
      expect(made.length).toBeGreaterThan(0);
      await collect();
      expect(made.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    } finally {
      client.close();
    }
  });
});
