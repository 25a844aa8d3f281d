import type { BuiltinOverride, Config } from '../config/schema.js';
import { policyOf } from '../policy/index.js';
import { setUpBash } from './bash/index.js';
import { createBuiltinTools } from './builtin/index.js';
import type { CredentialProvider } from './credentials.js';
import { createHttpTool, type HttpDispatchers } from './http/index.js';
import { noopTool } from './noop.js';
import { rateLimitOf } from '../shared/settings.js';
import { breakerSettingsOf } from './settings.js';
import { toolSearchTool } from './tool-search.js';
import type { SandboxInfo } from './capabilities.js';
import type { Tool } from './tool.js';

export { probeWorkspace } from './workspace-probe.js';

/**
 * A built-in tool with the settings the config file gives it. The result inherits from the tool and replaces only those settings, so every
 * other behaviour (canonicalArgs, classify, lock, and any added later) is kept.
 */
function withOverride(tool: Tool, override: BuiltinOverride | undefined): Tool {
  if (!override) return tool;
  const settled = Object.create(tool) as Tool;
  if (override.concurrency_safe !== undefined) settled.concurrencySafe = override.concurrency_safe;
  if (override.side_effects !== undefined) settled.sideEffects = override.side_effects;
  if (override.timeout_ms !== undefined) settled.timeoutMs = override.timeout_ms;
  if (override.requires_approval !== undefined) settled.requiresApproval = override.requires_approval;
  if (override.breaker) settled.breaker = breakerSettingsOf(override.breaker);
  if (override.rate_limit) settled.rateLimit = rateLimitOf(override.rate_limit);
  if (override.max_arg_chars !== undefined) settled.maxArgChars = override.max_arg_chars;
  return settled;
}

/** The tools a configuration gives, and every problem found building them. */
export interface ToolSet {
  /** What the gateway serves. */
  tools: Tool[];
  /** Every built-in, served or disabled: policy rules may name any of them. */
  builtins: Tool[];
  problems: string[];
  /** When Bash is served: the sandbox its commands run in, and what start-up must warn about. */
  bash?: { sandbox: SandboxInfo; warnings: string[] };
}

/**
 * The tools a gateway serves: the built-ins on the workspace (minus those the config disables; Noop and tool_search only when enabled) and
 * the config file's HTTP tools, with every problem (unknown built-in names, credentials that cannot be answered) of every tool, not just
 * the first.
 */
export function inspectTools(
  config: Config,
  deps: { workspace: string; credentials: CredentialProvider; dispatchers: HttpDispatchers },
): ToolSet {
  const problems: string[] = [];
  const bashEnabled = config.builtins.Bash.enabled === true;
  const pathRules = policyOf(config.policy.rules);
  // With the state in Redis, replicas and workers may run commands on the same workspace.
  const shared = config.state.redis_url !== undefined || config.state.sentinels !== undefined || config.state.cluster_nodes !== undefined;
  const bash = setUpBash(config.builtins.Bash, deps.workspace, bashEnabled, pathRules, shared);
  problems.push(...bash.problems);
  const builtins = [...createBuiltinTools(pathRules), noopTool, bash.tool, toolSearchTool];
  const names = new Set(builtins.map((t) => t.name));
  for (const name of Object.keys(config.builtins)) {
    if (!names.has(name)) problems.push(`builtins.${name}: no built-in tool has this name; use one of ${[...names].join(', ')}`);
  }
  // Noop, Bash and tool_search are served only when the config enables them: a fresh gateway never serves a shell.
  const offByDefault = new Set([noopTool, bash.tool, toolSearchTool]);
  const served = (tool: Tool) => config.builtins[tool.name]?.enabled ?? !offByDefault.has(tool);
  const tools = builtins.filter(served).map((t) => withOverride(t, config.builtins[t.name]));
  for (const spec of config.tools) {
    if (names.has(spec.name)) {
      problems.push(`tools.${spec.name}: the name is taken by a built-in tool; rename it`);
      continue;
    }
    try {
      tools.push(createHttpTool(spec, { dispatchers: deps.dispatchers, credentials: deps.credentials }));
    } catch (err) {
      problems.push(`tools.${spec.name}: ${(err as Error).message}`);
    }
  }
  return { tools, builtins, problems, ...(bashEnabled && { bash: { sandbox: bash.tool.sandbox!, warnings: bash.warnings } }) };
}

/** The tools of {@link inspectTools}; throws listing every problem. */
export function loadTools(
  config: Config,
  deps: { workspace: string; credentials: CredentialProvider; dispatchers: HttpDispatchers },
): Tool[] {
  const { tools, problems } = inspectTools(config, deps);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return tools;
}
