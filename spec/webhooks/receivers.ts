// Real HTTP receivers for the webhook specs (node http servers on port 0): each verifies what it gets with the
// standardwebhooks package's Webhook.verify, exactly as a receiver would, and answers as its script says:
// 200, fail a few times first, hang, redirect, or not listen at all (a dead one).
import { randomBytes } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A fresh signing secret as an endpoint takes it. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One request as a receiver saw it. */
export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What Webhook.verify answered: the parsed body, or the verification error's message. */
  verified: { ok: true; payload: Record<string, unknown> } | { ok: false; error: string };
  at: number;
}

export type Answer = (req: Received, res: ServerResponse, count: number) => void;

export interface Receiver {
  url: string;
  secret: string;
  received: Received[];
  /** Requests by webhook-id. */
  byId(id: string): Received[];
  close(): Promise<void>;
}

export const ok: Answer = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');

/** Fails the first `times` requests (500), then answers 200. */
export function flaky(times: number): Answer {
  return (_req, res, count) => (count <= times ? res.writeHead(500).end('not yet') : ok(_req, res, count));
}

/** Never answers (until the server closes). */
export const hang: Answer = () => undefined;

export function redirect(to: string): Answer {
  return (_req, res) => res.writeHead(302, { location: to }).end();
}

/** Starts a receiver answering with `answer`. */
export async function startReceiver(answer: Answer = ok, secret = newSecret()): Promise<Receiver> {
  const received: Received[] = [];
  const verifier = new Webhook(secret);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: Received['verified'];
      try {
        verified = { ok: true, payload: verifier.verify(body, req.headers as Record<string, string>) as Record<string, unknown> };
      } catch (error) {
        verified = { ok: false, error: (error as Error).message };
      }
      const entry: Received = { id: String(req.headers['webhook-id']), headers: req.headers, body, verified, at: Date.now() };
      received.push(entry);
      answer(entry, res, received.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    secret,
    received,
    byId: (id) => received.filter((r) => r.id === id),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL nothing listens on: a port that was just free. */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

