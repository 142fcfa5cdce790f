// Raw JSON-RPC over HTTP to the MCP endpoint (the 2025 era, stateless: no initialize needed), for bodies the
// SDK client cannot build (deep nesting, batches).
import request from 'supertest';
import type { Express } from 'express';

export async function rpc(app: Express, body: string, headers: Record<string, string> = {}) {
  let r = request(app)
    .post('/api/mcp')
    .set('Accept', 'application/json, text/event-stream')
    .set('Content-Type', 'application/json')
    .set('mcp-protocol-version', '2025-06-18');
  for (const [k, v] of Object.entries(headers)) r = r.set(k, v);
  return r.send(body);
}

/** A tools/call message as a JSON string, `argsJson` spliced in as it is. */
export function toolCall(id: number, name: string, argsJson: string): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argsJson}}}`;
}
