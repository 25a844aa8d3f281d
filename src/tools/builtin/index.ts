import type { Tool } from '../tool.js';
import { createWorkspace } from '../workspace.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createLsTool } from './ls.js';
import { createReadTool } from './read.js';
import { createWriteTool } from './write.js';

/**
 * The workspace file tools (Read, Write, Edit, Glob, Grep, LS) confined to
 * `workspaceRoot`, which must exist. Throws at once when it does not, so a
 * misconfigured root stops start-up rather than every call.
 */
export function createBuiltinTools(workspaceRoot: string): Tool[] {
  const ws = createWorkspace(workspaceRoot);
  return [createReadTool(ws), createWriteTool(ws), createEditTool(ws), createGlobTool(ws), createGrepTool(ws), createLsTool(ws)];
}
