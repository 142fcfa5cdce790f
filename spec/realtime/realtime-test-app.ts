// The app realtime specs share: an auth collection, collections with open, owner-constrained,
// admin-only and relation-constrained read rules, listening on 127.0.0.1 with api.attach(server).
import type http from 'node:http';
import type { AccessArgs, CollectionConfig, RealtimeOptions } from '../../lib';
import { type AuthTestApp, type AuthTestOptions, createAuthTestApp } from '../auth/auth-test-app';
import { closeServer, listen } from './realtime-clients';

export const ann = { id: '0000000000000000000000a1', role: 'user' };
export const bob = { id: '0000000000000000000000b2', role: 'user' };
export const admin = { id: '0000000000000000000000ff', role: 'admin' };

const isAdmin = ({ user }: AccessArgs) => user?.role === 'admin';
const ownOrAdmin = ({ user }: AccessArgs) => (user ? (user.role === 'admin' ? true : { owner: { eq: user.id } }) : false);

export const REALTIME_COLLECTIONS: CollectionConfig[] = [
  {
    slug: 'notes',
    softDelete: true,
    fields: { text: { type: 'text', required: true }, owner: { type: 'text' }, secret: { type: 'text', hidden: true, default: 'top-secret-value' } },
    access: { read: ownOrAdmin, update: ownOrAdmin, delete: ownOrAdmin },
  },
  { slug: 'open', fields: { name: { type: 'text' } }, access: { read: () => true, create: () => true, update: () => true, delete: () => true } },
  { slug: 'secrets', fields: { name: { type: 'text' } }, access: { read: isAdmin } },
  {
    slug: 'links',
    fields: { label: { type: 'text' }, target: { type: 'relationship', relationTo: 'open' } },
    access: { read: ({ user }) => (user ? { 'target.name': { eq: 'public' } } : false) },
  },
];

export interface RealtimeTestApp extends AuthTestApp {
  server: http.Server;
}

/** The app, listening, with WebSocket upgrades attached. */
export async function createRealtimeTestApp(realtime: true | RealtimeOptions = true, options: AuthTestOptions = {}): Promise<RealtimeTestApp> {
  const t = await createAuthTestApp({ ...options, collections: [...REALTIME_COLLECTIONS, ...(options.collections ?? [])], extra: { ...options.extra, realtime } });
  const server = await listen(t.app);
  t.api.attach(server);
  const close = t.close;
  return Object.assign(t, {
    server,
    async close() {
      await close();
      await closeServer(server);
    },
  });
}

/** Host-user header (the test app's stand-in auth sets req.user from it). */
export function hostUser(user: Record<string, unknown>): Record<string, string> {
  return { 'X-Test-User': JSON.stringify(user) };
}
