import { Type } from 'typebox';
import { toolAllowance, type ToolsetsConfig } from '../policy/index.js';
import { GatewayError } from '../protocol/errors.js';
import type { Caller } from '../pipeline/types.js';

/** The `toolset` query parameter of GET /tools and POST /execute. */
export const ToolsetParam = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Only the tools of this named set (config `toolsets`); 404 for a set the key does not have.',
});

/** Each configured set's matcher, compiled once: the config's arrays live as long as the app. */
const allowances = new WeakMap<readonly string[], (tool: string) => boolean>();

function allowanceOf(tools: readonly string[]): (tool: string) => boolean {
  let inSet = allowances.get(tools);
  if (!inSet) allowances.set(tools, (inSet = toolAllowance(tools)));
  return inSet;
}

/**
 * The caller held to the toolset `name` as well as to its key's own limits:
 * it sees and calls the tools both allow. Without a name, the caller as it
 * is. A set that is not configured, or not one of the key's
 * `keys[].toolsets`, is 404 alike, naming the sets the key has: a key
 * learns nothing of the sets beyond its own.
 */
/** The path parameter of `/mcp/{toolset}`; `/mcp` has none. */
export const ToolsetPath = Type.Object({ toolset: Type.String({ maxLength: 64, description: 'A name under `toolsets` in the config.' }) });

export function inToolset(caller: Caller, name: string | undefined, toolsets: ToolsetsConfig): Caller {
  if (name === undefined) return caller;
  const own = caller.toolsets ?? Object.keys(toolsets);
  const tools = Object.hasOwn(toolsets, name) && own.includes(name) ? toolsets[name] : undefined;
  if (!tools) {
    throw new GatewayError('NOT_FOUND', {
      message: `No toolset named ${JSON.stringify(name.slice(0, 64))}.`,
      details: { available: [...own].sort() },
    });
  }
  const inSet = allowanceOf(tools);
  return { ...caller, allows: (tool) => caller.allows(tool) && inSet(tool), only: [...(caller.only ?? []), tools], toolset: name };
}
