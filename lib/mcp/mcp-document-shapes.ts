// What the OpenAPI document says of `/mcp`'s bodies: a JSON-RPC message in, and the JSON-RPC errors (in
// application/json, not problem+json) the SDK answers itself: a body that does not parse, the Origin and Host
// guards, an Accept or Content-Type it does not take, GET and DELETE on a stateless endpoint. The messages'
// methods and tools are MCP's own (`tools/list`), not described here.
import type { BodyShape } from '../http/route-table';

const JSON_RPC_SCHEMAS = {
  JsonRpcMessage: {
    type: 'object',
    description:
      'One JSON-RPC 2.0 message: a request (`id`, `method`, `params`: initialize, tools/list, tools/call, ...), a notification (no `id`), or an answer to the server. Its methods and tools are described by MCP itself (tools/list).',
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer'], description: 'Absent on a notification.' },
      method: { type: 'string' },
      params: { type: 'object' },
      result: { type: 'object' },
      error: { type: 'object' },
    },
    required: ['jsonrpc'],
  },
  JsonRpcError: {
    type: 'object',
    description: 'A JSON-RPC 2.0 error answer, in application/json.',
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer', 'null'], description: "The request's id; null when it could not be read." },
      error: {
        type: 'object',
        properties: {
          code: { type: 'integer', description: '-32700: the body is not JSON; -32600: not a JSON-RPC message; -32000: the transport refused the request (Origin, Host, Accept, Content-Type, method).' },
          message: { type: 'string' },
          data: { description: 'More about the error, when the SDK gives it.' },
        },
        required: ['code', 'message'],
      },
    },
    required: ['jsonrpc', 'error'],
  },
};

/** The body of `POST /mcp`: one JSON-RPC message. */
export const JSON_RPC_MESSAGE: BodyShape = { kind: 'named', name: 'JsonRpcMessage', schemas: { JsonRpcMessage: JSON_RPC_SCHEMAS.JsonRpcMessage } };

/** A JSON-RPC error the SDK answers. */
export const JSON_RPC_ERROR: BodyShape = { kind: 'named', name: 'JsonRpcError', schemas: { JsonRpcError: JSON_RPC_SCHEMAS.JsonRpcError } };
