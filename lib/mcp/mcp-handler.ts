// The SDK's handler of both protocol eras, answering JSON in both. The 2026 era (per-request envelopes) is
// the SDK's createMcpHandler; 2025-era traffic (what most agents speak today) is served here rather than by
// its stateless fallback, which answers every POST as an event stream: a fresh server from the same
// factory over a stateless transport with JSON answers. Neither era has sessions, so GET and DELETE (a
// 2025 session's stream and its end) are a 405.
import { type McpHandlerRequestOptions, type McpServerFactory, WebStandardStreamableHTTPServerTransport, createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';

/** The JSON-RPC error the SDK answers a GET or DELETE of a stateless endpoint with. */
function methodNotAllowed(): Response {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
  return new Response(body, { status: 405, headers: { 'Content-Type': 'application/json', Allow: 'POST' } });
}

/** Serves one 2025-era request with a server of its own, answering JSON. */
async function serveLegacy(factory: McpServerFactory, request: Request, options: McpHandlerRequestOptions = {}): Promise<Response> {
  if (request.method.toUpperCase() !== 'POST') return methodNotAllowed();
  const { authInfo, parsedBody } = options;
  const server = await factory({ era: 'legacy', ...(authInfo && { authInfo }), requestInfo: request });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { ...(authInfo && { authInfo }), ...(parsedBody !== undefined && { parsedBody }) });
  } finally {
    // A JSON answer is complete once returned: nothing of this request's server is used again.
    await transport.close().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}

/** One fetch-shaped handler of both eras, for the SDK's Node adapter. */
export function createEraHandler(factory: McpServerFactory, onerror: (error: Error) => void): FetchLikeMcpHandler {
  // `auto` answers JSON as long as a tool sends nothing before its result, which none does (`json` would
  // say the same with a warning on the console).
  const modern = createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto', onerror });
  return {
    async fetch(request, options) {
      if (request.method.toUpperCase() !== 'POST') return methodNotAllowed();
      return (await isLegacyRequest(request, options?.parsedBody)) ? serveLegacy(factory, request, options) : modern.fetch(request, options);
    },
  };
}
