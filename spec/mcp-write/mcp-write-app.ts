// The app the write tools' specs talk to, as an agent does (the MCP test app: users with JWT bearers and API
// keys, the host's req.user through X-Test-User, the SDK's own client over Streamable HTTP), with MCP writes
// on, collections to write, and the audit log keeping them.
import type { Client } from '@modelcontextprotocol/client';
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import type { AuditEntry } from '../../lib/audit/audit-entry';
import { type AuthTestApp, type Registered, bearer } from '../auth/auth-test-app';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';

type Role = { role?: string } | null;
const isEditor = ({ user }: { user: Role }) => user?.role === 'editor' || user?.role === 'admin';
const isAdmin = ({ user }: { user: Role }) => user?.role === 'admin';

/**
 * `articles`: anyone reads, a signed-in caller creates, editors update, admins delete; `featured` is set by
 * admins only. `pages`: drafts, editors write and publish. `memos`: needs the record's ETag on
 * every write. `stamped`: an afterChange hook changes what a write answers.
 */
export const WRITE_COLLECTIONS: CollectionConfig[] = [
  {
    slug: 'articles',
    access: { read: () => true, create: ({ user }) => user !== null, update: isEditor, delete: isAdmin },
    fields: {
      title: { type: 'text', required: true },
      body: { type: 'text' },
      code: { type: 'text', unique: true },
      featured: { type: 'boolean', access: { create: isAdmin, update: isAdmin } },
    },
  },
  {
    slug: 'pages',
    versions: { drafts: true },
    access: { read: () => true, create: isEditor, update: isEditor, delete: isEditor, publish: isEditor, readDrafts: isEditor },
    fields: { title: { type: 'text', required: true }, body: { type: 'text' } },
  },
  {
    slug: 'memos',
    requireIfMatch: true,
    access: { read: () => true, create: () => true, update: () => true, delete: () => true },
    fields: { text: { type: 'text' } },
  },
  {
    slug: 'stamped',
    access: { read: () => true, create: isEditor, update: isEditor, delete: isAdmin },
    fields: { title: { type: 'text' } },
    // The answer of a write is not the record a read gives: REST sends no ETag with it.
    hooks: { afterChange: [({ doc }) => ({ ...doc, receipt: 'stored' })] },
  },
];

export type McpWriteApp = McpTestApp;

/** The app with the write tools on (or with `mcp` as given), the audit log keeping the write collections. */
export function createMcpWriteApp(mcp: unknown = { write: true }): Promise<McpWriteApp> {
  return createMcpTestApp(mcp, { collections: WRITE_COLLECTIONS, extra: { audit: { collections: ['articles', 'pages', 'memos'] } } });
}

/** An agent connected with these request headers (a credential...); closed with the app. */
export function connect(t: McpWriteApp, headers: Record<string, string> = {}): Promise<Client> {
  return t.connect(headers);
}

/** Header objects for each kind of caller. */
export const as = {
  bearer: (user: Registered) => Object.fromEntries([bearer(user.accessToken)]),
  apiKey: (key: string) => ({ 'X-API-Key': key }),
  host: (user: Record<string, unknown>) => ({ 'X-Test-User': JSON.stringify(user) }),
};

/** Creates an API key of `user` with these scopes and answers it. */
export async function apiKeyOf(t: AuthTestApp, user: Registered, scopes: string[]): Promise<string> {
  const res = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'agent', scopes });
  if (res.status !== 201) throw new Error(`api key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.apiKey.key as string;
}

/** Gives a registered user a role directly in the database. */
export async function withRole(t: AuthTestApp, user: Registered, role: string): Promise<Registered> {
  await t.connection.collection('users').updateOne({ email: user.email }, { $set: { role } });
  return user;
}

/** What a tool answered: its structured content, whether it is an error, and its text. */
export interface ToolAnswer {
  isError: boolean;
  structured: Record<string, unknown>;
  text: string;
}

/** Calls a tool and answers what it answered (a protocol error throws). */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text?: string }> };
  const text = (result.content ?? []).map((part) => part.text ?? '').join('\n');
  return { isError: result.isError === true, structured: result.structuredContent ?? {}, text };
}

/** The tool error's `errors` (each naming the argument), after checking it is one. */
export function toolError(answer: ToolAnswer): { status: number; code: string; detail: string; errors?: Array<{ argument: string; message: string; code: string }> } {
  if (!answer.isError) throw new Error(`expected a tool error, got ${answer.text}`);
  return (answer.structured as { error: ReturnType<typeof toolError> }).error;
}

/** The audit entries stored, oldest first. */
export async function auditEntries(t: AuthTestApp): Promise<AuditEntry[]> {
  // A read of the log stores this process's queued entries first.
  await t.api.audit?.find({ limit: 1 });
  const rows = await t.connection.collection('content-router.audit').find({}, { projection: { _id: 0 } }).sort({ _id: 1 }).toArray();
  return rows as unknown as AuditEntry[];
}
