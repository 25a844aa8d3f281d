import type { PathRules } from '../../policy/index.js';
import type { Tool } from '../tool.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createLsTool } from './ls.js';
import { linkNames, namesThrough } from './link-names.js';
import { editProposal, writeProposal } from './proposal.js';
import { createReadTool } from './read.js';
import { createWriteTool } from './write.js';

/** The workspace file tools, each call confined to its caller's workspace; the walkers (Glob, Grep, LS) apply `paths` to every entry. */
export function createBuiltinTools(paths: PathRules): Tool[] {
  const write = Object.assign(createWriteTool(), writeProposal);
  const edit = Object.assign(createEditTool(), editProposal);
  const tools = [createReadTool(), write, edit, createGlobTool(paths), createGrepTool(paths), createLsTool(paths)];
  return tools.map((tool) => withCanonicalPath(tool, paths));
}

/**
 * Policy rules and the Read lock see `path` in its canonical forms (Tool.canonicalArgs): `./infra/x` is `infra/x`, `link/x` is also
 * `secrets/x` when `link` points there, and a path through a folder a rule names is also its target's.
 */
function withCanonicalPath(tool: Tool, paths: PathRules): Tool {
  tool.canonicalArgs = async (args, ws) => {
    const given = args.path;
    if (typeof given !== 'string') return [];
    const real = await ws.resolveCanonical(given, args);
    const spelled = ws.canonical(given);
    const linked = namesThrough(await linkNames(ws, paths), real);
    return [...new Set([real, spelled, ...linked])].map((p) => ({ ...args, path: p }));
  };
  return tool;
}
