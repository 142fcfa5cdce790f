// Every tool of the MCP endpoint, in the order tools/list shows them; each decides whether a caller is
// offered it (tool.ts).
import type { Tool } from './tool';
import { countTool } from './tools/count';
import { describeTool } from './tools/describe';
import { findTool } from './tools/find';
import { getTool } from './tools/get';
import { createTool } from './tools/create';
import { updateTool } from './tools/update';
import { deleteTool } from './tools/delete';
import { saveDraftTool } from './tools/save-draft';
import { publishTool } from './tools/publish';

export const TOOLS: readonly Tool[] = [describeTool, findTool, getTool, countTool, createTool, updateTool, deleteTool, saveDraftTool, publishTool];
