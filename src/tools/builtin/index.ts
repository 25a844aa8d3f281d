import type { PathRules } from '../../policy/index.js';
import type { Tool } from '../tool.js';
import { createWorkspace } from '../workspace.js';
import type { Workspace } from '../workspace-types.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createLsTool } from './ls.js';
import { editProposal, writeProposal } from './proposal.js';
import { createReadTool } from './read.js';
import { createWriteTool } from './write.js';

/**
 * The workspace file tools (Read, Write, Edit, Glob, Grep, LS) confined to
 * `workspaceRoot`, which must exist. Throws at once when it does not, so a
 * misconfigured root stops start-up rather than every call. The walkers
 * (Glob, Grep, LS) apply `paths` to every entry they meet.
 */
export function createBuiltinTools(workspaceRoot: string, paths: PathRules): Tool[] {
  const ws = createWorkspace(workspaceRoot);
  const write = Object.assign(createWriteTool(ws), writeProposal(ws));
  const edit = Object.assign(createEditTool(ws), editProposal(ws));
  const tools = [createReadTool(ws), write, edit, createGlobTool(ws, paths), createGrepTool(ws, paths), createLsTool(ws, paths)];
  return tools.map((tool) => withCanonicalPath(tool, ws));
}

/**
 * Policy rules and the Read lock see `path` in its canonical forms (see Tool.canonicalArgs): `.env/` and
 * `./infra/x` are `.env` and `infra/x`, and `link/x` is also `secrets/x` when `link` points to `secrets`.
 */
function withCanonicalPath(tool: Tool, ws: Workspace): Tool {
  tool.canonicalArgs = async (args) => {
    const given = args.path;
    if (typeof given !== 'string') return [];
    const real = await ws.resolveCanonical(given, args);
    const spelled = ws.canonical(given);
    return (spelled === real ? [real] : [real, spelled]).map((p) => ({ ...args, path: p }));
  };
  return tool;
}
