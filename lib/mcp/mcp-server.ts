// The MCP server of one HTTP request (the SDK's stateless idiom: a factory per request): built for the
// request's caller, with only the tools it may use registered, so tools/list is that caller's list. Each
// tool call runs the tool and answers its REST answer, or a tool error naming the argument at fault.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/server';
import { describeSchema } from '../operations/describe-schema';
import type { Tool, ToolContext } from './tool';
import { toolAnswer, toolRefusal } from './tool-answer';

/** What the route hands the factory for one request: the tool context but the caller's schema, which the factory asks. */
export type McpCall = Omit<ToolContext, 'schema'>;

/** The package's version, the server's version in the MCP handshake (package.json is two levels up from lib/mcp and dist/mcp alike). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const SERVER_INFO = { name: 'content-router', version: packageVersion() };

/** Registers `tool` on `server`, its calls answered through tool-answer.ts. */
function register(server: McpServer, tool: Tool, context: ToolContext): void {
  server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations }, async (args: Record<string, unknown>) => {
    try {
      return toolAnswer(await tool.run(args, context));
    } catch (error) {
      return toolRefusal(error, tool, context.runtime);
    }
  });
}

/** The server of one request: the caller's schema asked once, the tools it is offered registered. */
export async function createCallerServer(call: McpCall, tools: readonly Tool[]): Promise<McpServer> {
  const schema = await describeSchema({ runtime: call.runtime, user: call.user, req: call.req }).catch((error: unknown) => {
    // An access rule that failed (a bug of the host's): the SDK answers an internal error without its message.
    call.runtime.config.logger.error('content-router: MCP: asking the caller\'s rights failed:', error);
    throw error;
  });
  const context: ToolContext = { ...call, schema };
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } });
  for (const tool of tools) {
    if (tool.offered(context)) register(server, tool, context);
  }
  return server;
}
