import type { BuiltinOverride, Config } from '../config/schema.js';
import { createBuiltinTools } from './builtin/index.js';
import { createHttpTool, type HttpDispatchers } from './http/index.js';
import { noopTool } from './noop.js';
import type { Tool } from './tool.js';

/** A built-in tool with the settings the config file gives it. */
function withOverride(tool: Tool, override: BuiltinOverride | undefined): Tool {
  if (!override) return tool;
  const settled: Tool = {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    concurrencySafe: override.concurrency_safe ?? tool.concurrencySafe,
    run: (args, ctx) => tool.run(args, ctx),
  };
  const timeoutMs = override.timeout_ms ?? tool.timeoutMs;
  if (timeoutMs !== undefined) settled.timeoutMs = timeoutMs;
  const requiresApproval = override.requires_approval ?? tool.requiresApproval;
  if (requiresApproval !== undefined) settled.requiresApproval = requiresApproval;
  const breaker = override.breaker
    ? { failureThreshold: override.breaker.failure_threshold, recoveryMs: override.breaker.recovery_ms }
    : tool.breaker;
  if (breaker) settled.breaker = breaker;
  const rateLimit = override.rate_limit ? { perMinute: override.rate_limit.per_minute } : tool.rateLimit;
  if (rateLimit) settled.rateLimit = rateLimit;
  if (tool.lock) settled.lock = tool.lock;
  if (tool.classify) settled.classify = (args) => tool.classify!(args);
  return settled;
}

/** The tools a configuration gives, and every problem found building them. */
export interface ToolSet {
  /** What the gateway serves. */
  tools: Tool[];
  /** Every built-in, served or disabled: policy rules may name any of them. */
  builtins: Tool[];
  problems: string[];
}

/**
 * The tools a gateway serves: the built-ins on the workspace (minus those the
 * config disables; Noop only when enabled) and the config file's HTTP tools,
 * with every problem (unknown built-in names, missing environment variables)
 * of every tool, not just the first.
 */
export function inspectTools(config: Config, deps: { workspace: string; env: NodeJS.ProcessEnv; dispatchers: HttpDispatchers }): ToolSet {
  const problems: string[] = [];
  const builtins = [...createBuiltinTools(deps.workspace), noopTool];
  const names = new Set(builtins.map((t) => t.name));
  for (const name of Object.keys(config.builtins)) {
    if (!names.has(name)) problems.push(`builtins.${name}: no built-in tool has this name; use one of ${[...names].join(', ')}`);
  }
  const served = (tool: Tool) => config.builtins[tool.name]?.enabled ?? tool !== noopTool;
  const tools = builtins.filter(served).map((t) => withOverride(t, config.builtins[t.name]));
  for (const spec of config.tools) {
    if (names.has(spec.name)) {
      problems.push(`tools.${spec.name}: the name is taken by a built-in tool; rename it`);
      continue;
    }
    try {
      tools.push(createHttpTool(spec, { dispatchers: deps.dispatchers, env: deps.env }));
    } catch (err) {
      problems.push(`tools.${spec.name}: ${(err as Error).message}`);
    }
  }
  return { tools, builtins, problems };
}

/** The tools of {@link inspectTools}; throws listing every problem. */
export function loadTools(config: Config, deps: { workspace: string; env: NodeJS.ProcessEnv; dispatchers: HttpDispatchers }): Tool[] {
  const { tools, problems } = inspectTools(config, deps);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return tools;
}
