// Every tool of the MCP endpoint, in the order tools/list shows them; each decides whether a caller is
// offered it (tool.ts).
import type { Tool } from './tool';
import { countTool } from './tools/count';
import { describeTool } from './tools/describe';
import { findTool } from './tools/find';
import { getTool } from './tools/get';

export const TOOLS: readonly Tool[] = [describeTool, findTool, getTool, countTool];
