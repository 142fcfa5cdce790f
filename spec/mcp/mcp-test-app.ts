// An app with MCP on, listening on 127.0.0.1, and the SDK's own client connecting to it over HTTP as an
// agent does (Streamable HTTP), with whatever headers a credential needs.
import type http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CollectionConfig } from '../../lib';
import { type AuthTestApp, type AuthTestOptions, createAuthTestApp } from '../auth/auth-test-app';
import { closeServer, listen } from '../realtime/realtime-clients';

export interface McpTestApp extends AuthTestApp {
  server: http.Server;
  /** The endpoint's URL. */
  url: URL;
  /** A connected SDK client sending `headers` on every request; closed by close(). */
  connect(headers?: Record<string, string>): Promise<Client>;
}

/** Readable by admins only, with a field only admins read. */
export const SECRETS: CollectionConfig = {
  slug: 'secrets',
  access: { read: ({ user }) => user?.role === 'admin', create: ({ user }) => user?.role === 'admin', update: ({ user }) => user?.role === 'admin', delete: ({ user }) => user?.role === 'admin' },
  fields: { code: { type: 'text' } },
};

/** Records anyone reads (signed-in users write), with a field only admins read, and a hidden field nobody reads. */
export const NOTES: CollectionConfig = {
  slug: 'notes',
  access: { read: () => true },
  fields: {
    text: { type: 'text' },
    rank: { type: 'number' },
    internal: { type: 'text', access: { read: ({ user }) => user?.role === 'admin' } },
    token: { type: 'text', hidden: true },
  },
};

/** `base`: the collections besides users and posts (default secrets and notes), before `options.collections`. */
export async function createMcpTestApp(mcp: unknown = true, options: AuthTestOptions = {}, base: CollectionConfig[] = [SECRETS, NOTES]): Promise<McpTestApp> {
  const t = await createAuthTestApp({ ...options, collections: [...base, ...(options.collections ?? [])], extra: { mcp: mcp as never, ...options.extra } });
  const server = await listen(t.app);
  const { port } = server.address() as { port: number };
  const url = new URL(`http://127.0.0.1:${port}/api/mcp`);
  const clients: Client[] = [];
  const close = t.close.bind(t);
  return Object.assign(t, {
    server,
    url,
    async connect(headers: Record<string, string> = {}) {
      const client = new Client({ name: 'spec-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await closeServer(server);
      await close();
    },
  });
}

/** A tool call's structured content. */
export function structured(result: unknown): Record<string, unknown> {
  return (result as { structuredContent: Record<string, unknown> }).structuredContent;
}
