// What a tool answers: its REST answer as structured content with a JSON rendering of it as text; or,
// when it refuses, a tool error (`isError: true`), never a JSON-RPC error nor a 500. A ContentError says
// what REST would have said, each of its problems named by the tool argument it is about: a query's
// parameters keep their names (the tools' arguments are named like them), body fields are under `data`,
// an If-Match problem is about `etag`, a record not found about `id`. Any other error is a bug: logged, and
// answered without its internals.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type ContentError, type ErrorDetail, InvalidHeaderError, NotFoundError, PreconditionFailedError, PreconditionRequiredError, QueryError, isErrorAnswer } from '../errors';
import { toProblem } from '../http/to-problem';
import type { Runtime } from '../operations/runtime';
import type { Tool } from './tool';

/** One problem of a refused call, named by the tool argument it is about (when it is about one). */
export interface ToolProblem {
  argument?: string;
  message: string;
  code: string;
}

/** The structured content of a refused call. */
export interface ToolRefusal {
  error: { status: number; code: string; detail: string; errors: ToolProblem[] };
}

/** A tool's answer: the structured content, and the same as indented JSON for agents that read text. */
export function toolAnswer(structured: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }], structuredContent: { ...structured } };
}

/** True for the errors of an If-Match precondition (missing, malformed, stale): the tools' `etag`. */
function aboutEtag(error: ContentError, detail?: ErrorDetail): boolean {
  if (error instanceof PreconditionFailedError || error instanceof PreconditionRequiredError) return true;
  return error instanceof InvalidHeaderError && detail?.field === 'If-Match';
}

/** The argument one problem of `error` is about, given the arguments the tool takes. */
function argumentOf(error: ContentError, detail: ErrorDetail | undefined, tool: Tool): string | undefined {
  const takes = (name: string) => name in tool.input.shape;
  if (aboutEtag(error, detail)) return 'etag';
  const field = detail?.field;
  if (field !== undefined) {
    // A query's problems name its parameters (`where.title`, `sort`), and so do the tools' own (`collection`).
    if (error instanceof QueryError) return field;
    return takes('data') ? `data.${field}` : field;
  }
  if (error instanceof NotFoundError && takes('id')) return 'id';
  return undefined;
}

/** The problems of `error`, each named by its argument. */
function problemsOf(error: ContentError, tool: Tool): ToolProblem[] {
  const details = error.errors ?? [];
  if (details.length === 0) {
    const argument = argumentOf(error, undefined, tool);
    return argument ? [{ argument, message: error.message, code: error.code }] : [];
  }
  return details.map((detail) => {
    const argument = argumentOf(error, detail, tool);
    const message = detail.index !== undefined ? `item ${detail.index}: ${detail.message}` : detail.message;
    return { ...(argument !== undefined && { argument }), message, code: detail.code };
  });
}

/** The tool error for a refused or failed call. */
export function toolRefusal(error: unknown, tool: Tool, runtime: Runtime): CallToolResult {
  // The same mapping as REST (a body parser's or Mongoose's error is a ContentError there too).
  const problem = toProblem(error, { development: false });
  if (problem.unexpected) runtime.config.logger.error(`content-router: MCP tool ${tool.name} failed:`, error);
  const known = isErrorAnswer(error) ? error : undefined;
  const errors = known ? problemsOf(known, tool) : (problem.body.errors ?? []).map((e) => ({ ...(e.field !== undefined && { argument: e.field }), message: e.message, code: e.code }));
  const { status, code, detail } = problem.body;
  // A problem the detail already says (a query error's `where.x: unknown field`) is not said twice.
  const named = errors
    .filter((e) => e.argument !== undefined && e.message !== detail)
    .map((e) => `${e.argument}: ${e.message}`)
    .filter((part) => !detail.includes(part));
  const text = named.length > 0 ? `${detail} (${named.join('; ')})` : detail;
  const structured: ToolRefusal = { error: { status, code, detail, errors } };
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { ...structured } };
}

