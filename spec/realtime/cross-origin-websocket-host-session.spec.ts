// A browser opens a WebSocket from any page, to any site, with that site's cookies, and no same-origin
// policy guards what the page then reads. A host whose `auth.fromRequest` reads its own session from the
// upgrade request (a cookie) would otherwise hand another site's page a live feed of its user's records
// (cross-site WebSocket hijacking): such an upgrade from another origin is refused as a cross-site write is.
import type http from 'node:http';
import { type AuthTestApp, createAuthTestApp, registerUser } from '../auth/auth-test-app';
import { type WsClient, baseUrl, closeServer, listen, openWs } from './realtime-clients';

jest.setTimeout(30_000);

const EVIL = 'https://evil.example';
const TRUSTED = 'https://admin.example.com';
const ann = { id: '0000000000000000000000a1', role: 'admin' };
let t: AuthTestApp;
let server: http.Server;
const open: WsClient[] = [];

beforeAll(async () => {
  t = await createAuthTestApp({
    // The host's session, read straight from its cookie (a signed JWT cookie, say): no middleware runs on an upgrade.
    auth: { fromRequest: (req) => (/(?:^|;\s*)sid=ann(?:;|$)/.test(String(req.headers.cookie ?? '')) ? ann : null) },
    collections: [{ slug: 'secrets', fields: { name: { type: 'text' } }, access: { read: ({ user }) => user?.role === 'admin', create: () => true } }],
    extra: { realtime: true, security: { trustedOrigins: [TRUSTED] } },
  });
  server = await listen(t.app);
  t.api.attach(server);
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(async () => {
  await t.close();
  await closeServer(server);
});

async function ws(headers: Record<string, string>, path = '/api/ws'): Promise<WsClient> {
  const client = await openWs(server, path, { headers });
  open.push(client);
  return client;
}

async function refusal(headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const error = (await ws(headers).then(
    () => new Error('the upgrade was accepted'),
    (refused: unknown) => refused,
  )) as { status?: number; body?: string };
  return { status: error.status ?? 0, body: JSON.parse(error.body ?? '{}') as Record<string, unknown> };
}

async function subscribesToSecrets(client: WsClient): Promise<Record<string, unknown>> {
  client.send({ type: 'subscribe', collections: ['secrets'] });
  return client.next((m) => m.type === 'subscribed' || m.type === 'error');
}

it('refuses an upgrade from another origin that the host session authenticates', async () => {
  for (const headers of <Array<Record<string, string>>>[
    { Cookie: 'sid=ann', Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' },
    { Cookie: 'sid=ann', Origin: 'https://blog.example.com', 'Sec-Fetch-Site': 'same-site' },
    // A browser that does not send Sec-Fetch-Site still sends Origin on every WebSocket handshake.
    { Cookie: 'sid=ann', Origin: EVIL },
  ]) {
    const { status, body } = await refusal(headers);
    expect({ headers, status, code: body.code }).toEqual({ headers, status: 403, code: 'cross_origin_request' });
  }
});

it('never lets a page of another origin read the session user’s records', async () => {
  const client = await ws({ Cookie: 'sid=ann', Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' }).catch(() => undefined);
  if (!client) return;
  expect(await subscribesToSecrets(client)).not.toEqual({ type: 'subscribed', collections: ['secrets'] });
});

it('accepts the session from the host’s own pages and from trusted origins', async () => {
  for (const headers of <Array<Record<string, string>>>[
    { Cookie: 'sid=ann', Origin: baseUrl(server), 'Sec-Fetch-Site': 'same-origin' },
    { Cookie: 'sid=ann', Origin: baseUrl(server) },
    { Cookie: 'sid=ann', Origin: TRUSTED, 'Sec-Fetch-Site': 'cross-site' },
    // Not a browser (no Origin): a server or a script, which sends what its author wrote.
    { Cookie: 'sid=ann' },
  ]) {
    expect(await subscribesToSecrets(await ws(headers))).toEqual({ type: 'subscribed', collections: ['secrets'] });
  }
});

it('accepts anonymous clients and package credentials from any origin (a browser never adds those by itself)', async () => {
  const anonymous = await ws({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' });
  expect(await subscribesToSecrets(anonymous)).toMatchObject({ type: 'error', code: 'unauthorized' });
  const { accessToken } = await registerUser(t);
  const withToken = await ws({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' }, `/api/ws?token=${accessToken}`);
  expect(await subscribesToSecrets(withToken)).toMatchObject({ type: 'error', code: 'forbidden' });
});
