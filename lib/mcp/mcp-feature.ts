// The Model Context Protocol as a feature (docs/mcp.md): `POST <prefix>/mcp` speaks MCP over Streamable HTTP
// (the official SDK, stateless, JSON answers) to agents, with the same credentials, access rules, hooks,
// rate limit and idempotency as REST, since every tool runs REST's operations. A request passes the
// router's phases like any other (rate limit, credential check: a bad one is REST's 401), then the SDK's
// Origin and Host guards against DNS rebinding, then the SDK with a server built for its caller.
// GET and DELETE (the sessions of a stateful server) are a 405. Both protocol eras answer JSON (mcp-handler.ts).
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import type { Request, Response } from 'express';
import { InvalidHeaderError } from '../errors';
import type { Feature } from '../http/feature';
import { isRecord } from '../util/is-record';
import { requestUser } from '../http/request-user';
import type { RouteDef, RouteHandler } from '../http/route-table';
import type { Runtime } from '../operations/runtime';
import { readMcpBody } from './mcp-body';
import { JSON_RPC_ERROR, JSON_RPC_MESSAGE } from './mcp-document-shapes';
import { createEraHandler } from './mcp-handler';
import { type ResolvedMcpOptions, parseMcpOptions } from './mcp-options';
import { callOf, mcpRequest, mcpResponse } from './mcp-request';
import { type McpCall, createCallerServer } from './mcp-server';
import { TOOLS } from './mcp-tools';
import { unsafeArgumentsAnswer } from './safe-arguments';

/** The hostnames of `security.trustedOrigins`: the browser pages the host trusts already. */
function trustedHostnames(runtime: Runtime): string[] {
  return [...runtime.config.trustedOrigins].flatMap((origin) => {
    try {
      return [new URL(origin).hostname];
    } catch {
      return [];
    }
  });
}

/** Whether `host` is a Host header a URL can be built on (the adapter does; a malformed one would throw there). */
function isHost(host: string | undefined): boolean {
  if (!host) return true;
  try {
    return new URL(`http://${host}`).host !== '';
  } catch {
    return false;
  }
}

/**
 * The JSON-RPC error answering a message this endpoint does not serve, before the SDK sees it: a batch (an
 * array of messages, which the protocol no longer has; each message is one request, so each counts against
 * the caller's rate limit), and `subscriptions/listen`, a stream the stateless endpoint never holds open.
 */
function refusedMessage(body: unknown): { status: number; error: object } | undefined {
  if (Array.isArray(body)) return { status: 400, error: { jsonrpc: '2.0', error: { code: -32600, message: 'Batches are not accepted: send one JSON-RPC message per request.' }, id: null } };
  if (isRecord(body) && body.method === 'subscriptions/listen') {
    const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
    return { status: 200, error: { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found: this endpoint is stateless and holds no subscription stream.' }, id } };
  }
  return undefined;
}

const ERRORS = {
  400: { description: 'The body is not JSON (-32700) or not a JSON-RPC message (-32600): the SDK\'s JSON-RPC error', shape: JSON_RPC_ERROR },
  401: { description: 'Invalid credentials' },
  403: { description: 'Origin or Host not allowed (the guards against DNS rebinding): a JSON-RPC error', shape: JSON_RPC_ERROR },
  406: { description: 'Accept does not take both application/json and text/event-stream: a JSON-RPC error', shape: JSON_RPC_ERROR },
  413: { description: 'Body too large' },
  415: { description: 'The body is not application/json: a JSON-RPC error', shape: JSON_RPC_ERROR },
};
const NO_SESSIONS = { 405: { description: 'Method not allowed: the endpoint is stateless (a JSON-RPC error; Allow: POST)', shape: JSON_RPC_ERROR } };

/** The routes at /mcp: POST carries every message; GET and DELETE are answered 405 (no sessions). */
function mcpRoutes(runtime: Runtime, options: ResolvedMcpOptions): RouteDef[] {
  const { logger } = runtime.config;
  const handler = createEraHandler(
    async (ctx) => {
      const call = callOf(ctx.authInfo);
      // Only this route's requests reach the handler, each with its call.
      if (!call) throw new Error('content-router: an MCP request without its caller');
      return createCallerServer(call, TOOLS);
    },
    // A client's malformed message is answered by the SDK; reported here for a trace only.
    (error) => logger.debug('content-router: MCP:', error.message),
  );
  const serve = toNodeHandler(handler, { onerror: (error) => logger.error('content-router: MCP request failed:', error) });
  const checkOrigin = originValidation(options.allowedOrigins ? [...options.allowedOrigins] : trustedHostnames(runtime));
  const checkHost = options.allowedHosts ? hostHeaderValidation([...options.allowedHosts]) : undefined;

  const answer: RouteHandler = async (req: Request, res: Response) => {
    // The SDK's adapter builds the request's URL from Host: one that names no host is the client's mistake.
    if (!isHost(req.headers.host)) throw new InvalidHeaderError('Host', 'must name a host (and port).');
    // The guards answer their 403 themselves (a JSON-RPC error, as the SDK's clients expect).
    if (!checkOrigin(req, res)) return;
    if (checkHost && !checkHost(req, res)) return;
    const refusal = refusedMessage(req.body);
    if (refusal) {
      res.status(refusal.status).json(refusal.error);
      return;
    }
    const unsafe = unsafeArgumentsAnswer(req.body, TOOLS, runtime);
    if (unsafe) {
      res.json(unsafe);
      return;
    }
    const user = await requestUser(runtime, req);
    const call: McpCall = { runtime, req, user, options };
    await serve(mcpRequest(req, call), mcpResponse(res), req.body);
  };
  const common = { path: '/mcp', tags: ['mcp'], auth: 'optional' as const, handler: answer };
  return [
    {
      ...common,
      method: 'post',
      operationId: 'mcp.post',
      summary: 'Model Context Protocol (Streamable HTTP, JSON-RPC)',
      description: 'Agents speak MCP here (docs/mcp.md): one JSON-RPC message per request, answered in JSON.',
      config: { idempotent: true },
      // Read by this feature's own parse hook (mcp-body.ts), never by the core's JSON parser.
      body: { type: 'json', shape: JSON_RPC_MESSAGE, required: true, ownParser: true },
      responses: { 200: { description: 'A JSON-RPC answer', shape: { kind: 'schema', schema: { type: 'object' } } }, 202: { description: 'A notification, accepted' }, ...ERRORS },
    },
    { ...common, method: 'get', operationId: 'mcp.stream', summary: 'No session stream: always 405 (the endpoint is stateless)', responses: NO_SESSIONS },
    { ...common, method: 'delete', operationId: 'mcp.endSession', summary: 'No session to end: always 405 (the endpoint is stateless)', responses: NO_SESSIONS },
  ];
}

/** `mcp`: the MCP endpoint, when configured. */
export const mcpFeature: Feature<ResolvedMcpOptions | undefined> = {
  name: 'mcp',
  options: parseMcpOptions,
  create(runtime, lifecycle, options) {
    if (!options) return undefined;
    const routes = mcpRoutes(runtime, options);
    const post = routes[0];
    // Read here, not by the core's JSON parser (the POST declares no JSON body): mcp-body.ts says why.
    const reader = readMcpBody(runtime.config.bodyLimit);
    lifecycle.parse.push((route) => (route === post ? reader : undefined));
    return { routes };
  },
};
