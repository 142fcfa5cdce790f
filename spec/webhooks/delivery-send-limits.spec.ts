// The limits of one attempt (no database: sendWebhook against real HTTP receivers on port 0): a receiver that
// accepts with a 2xx and then never ends its body has the delivery (re-sending it would duplicate an event it
// took), and one that answers a huge body is read only up to the bound.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { RESPONSE_BYTES, sendWebhook } from '../../lib/webhooks/send-webhook';
import type { ResolvedEndpoint } from '../../lib/webhooks/webhook-options';
import { newSecret } from './receivers';

describe('one webhook attempt against a misbehaving receiver', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/never-ends') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('accepted');
        } else {
          // A 200 with 8 MiB of answer.
          res.writeHead(200);
          res.end(Buffer.alloc(8 << 20, 'x'));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const send = (path: string) => {
    const endpoint: ResolvedEndpoint = { url: base + path, signer: new Webhook(newSecret()), events: ['*'], wants: () => true, where: undefined, headers: {}, view: undefined };
    return sendWebhook({ endpoint, id: 'msg_attack', payload: '{"type":"posts.create"}', timeoutMs: 300, signal: new AbortController().signal, at: new Date() });
  };

  it('a 2xx whose body never ends is delivered, with its status in the log, within the timeout', async () => {
    const started = Date.now();
    const { attempt, delivered } = await send('/never-ends');
    expect(delivered).toBe(true);
    expect(attempt).toEqual({ at: expect.any(Date), status: 200, durationMs: expect.any(Number), response: 'accepted' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a huge answer is read only up to the bound', async () => {
    const { attempt, delivered } = await send('/huge');
    expect(delivered).toBe(true);
    expect(attempt.response).toHaveLength(RESPONSE_BYTES);
  });
});
