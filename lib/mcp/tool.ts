// The one shape every MCP tool has (describe, find, get, count; create, update, delete, saveDraft, publish):
// its name and description, its arguments as a strict zod object (an unknown or ill-typed argument is the
// SDK's tool error naming it), whether this caller is offered it (tools/list shows a caller only the tools
// it may use), and what it does: it runs the same operation as its REST twin and resolves to the answer
// REST would send (its structured content), or throws the ContentError REST would answer.
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { Request } from 'express';
import type { z } from 'zod';
import type { CallerSchema } from '../config/caller-schema';
import type { AuthUser } from '../config/types';
import type { Runtime } from '../operations/runtime';
import type { ResolvedMcpOptions } from './mcp-options';

/** What a tool runs with: the caller of this HTTP request, its schema, and the endpoint's options. */
export interface ToolContext {
  readonly runtime: Runtime;
  /** The HTTP request the MCP message came in (its request state, headers, Idempotency-Key). */
  readonly req: Request;
  /** The caller, as REST resolves it: JWT bearer, API key, the host's req.user, or null (anonymous). */
  readonly user: AuthUser | null;
  /** What this caller may see and do (describeSchema), asked once per request. */
  readonly schema: CallerSchema;
  readonly options: ResolvedMcpOptions;
}

/** A tool as written: `run` gets its arguments as zod parsed them. */
export interface ToolDefinition<S extends z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** What agents may assume of a call (read-only; only adds; replaces or removes; the same twice changes nothing more). */
  readonly annotations: ToolAnnotations;
  /** Strict (`.strict()`), so an argument the tool does not take is refused, named. */
  readonly input: S;
  /** Whether tools/list shows this tool to the caller (it may use it on some collection or global). */
  offered(context: ToolContext): boolean;
  /** The REST answer as structured content; throws a ContentError to refuse (tool-answer.ts names the argument). */
  run(args: z.output<S>, context: ToolContext): Promise<object>;
}

/** A tool as the server registers it, whatever its arguments. */
export interface Tool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly annotations: ToolAnnotations;
  readonly input: z.ZodObject;
  offered(context: ToolContext): boolean;
  run(args: Record<string, unknown>, context: ToolContext): Promise<object>;
}

/** The annotations of a tool that only reads. */
export const READS: ToolAnnotations = { readOnlyHint: true };
/** The annotations of a tool that adds a record (each call another one). */
export const ADDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
/** The annotations of a tool that replaces or removes what is stored; the same call again changes nothing more. */
export const REPLACES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true };

/** Checks a tool's definition against its arguments' type (run takes what input parses), for the tool list. */
export function defineTool<S extends z.ZodObject>(definition: ToolDefinition<S>): Tool {
  return definition;
}
