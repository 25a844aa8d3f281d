import { unreachableRules, type ToolShape } from './reach.js';
import { toolsetProblems, type ToolsetsConfig } from './toolsets.js';

/*
 * At start-up the policy rules and the toolsets are checked against the tools
 * the configuration can serve, in two steps: what cannot name an MCP
 * server's tool (no server's prefix starts it) before the servers start,
 * then the rest once they have answered. A rule or entry that may name a
 * tool of a server not up yet is not checked: that server's tools are not
 * known.
 */

/** What the checks read of the configuration. */
export interface ReachInput {
  /** The policy rules and the tool entries as the file wrote them, valid or not (indexes are the file's). */
  written: { rules: readonly unknown[]; tools: readonly unknown[] };
  toolsets: ToolsetsConfig;
  /** Each MCP server's tool-name prefix, in the file's order. */
  prefixes: readonly string[];
}

/**
 * The tools rules may name: `known` (every built-in, served or disabled, and
 * the tools of the OpenAPI documents and of the servers that answered), then
 * every tool the file declares, valid or not.
 */
function ruleTargets(known: readonly ToolShape[], written: readonly unknown[]): ToolShape[] {
  const declared = written.flatMap((tool) =>
    typeof tool === 'object' && tool !== null && typeof (tool as { name?: unknown }).name === 'string'
      ? [{ name: (tool as { name: string }).name, parameters: (tool as { parameters?: unknown }).parameters }]
      : [],
  );
  return [...known.map((tool) => ({ name: tool.name, parameters: tool.parameters })), ...declared];
}

/**
 * The rules whose `tool` starts with one of `prefixes` (those that may name
 * a tool of an MCP server), or, with `upstream: false`, all the others; a
 * rule left out is `undefined`, so the indexes stay the file's.
 */
function rulesOn(rules: readonly unknown[], prefixes: readonly string[], upstream: boolean): unknown[] {
  const mayNameUpstream = (rule: unknown) => {
    const tool = (rule as { tool?: unknown } | null)?.tool;
    return typeof tool === 'string' && prefixes.some((prefix) => tool.startsWith(prefix));
  };
  return rules.map((rule) => (mayNameUpstream(rule) === upstream ? rule : undefined));
}

const startsWithAny = (entry: string, prefixes: readonly string[]) => prefixes.some((prefix) => entry.startsWith(prefix));

/** Before the MCP servers start: `known` as for the rules (see ruleTargets), `served` the names the toolsets may list. */
export function localReachProblems(input: ReachInput, known: readonly ToolShape[], served: readonly string[]): string[] {
  return [
    ...unreachableRules(rulesOn(input.written.rules, input.prefixes, false), ruleTargets(known, input.written.tools)),
    ...toolsetProblems(input.toolsets, served, (entry) => startsWithAny(entry, input.prefixes)),
  ];
}

/** Once the servers have answered (`answered[i]` for the server of `prefixes[i]`): the rules and entries the first step left out. */
export function upstreamReachProblems(
  input: ReachInput,
  answered: readonly boolean[],
  known: readonly ToolShape[],
  served: readonly string[],
): string[] {
  const up = input.prefixes.filter((_, i) => answered[i]);
  const down = input.prefixes.filter((_, i) => !answered[i]);
  const rules = rulesOn(rulesOn(input.written.rules, up, true), down, false);
  return [
    ...unreachableRules(rules, ruleTargets(known, input.written.tools)),
    ...toolsetProblems(input.toolsets, served, (entry) => !startsWithAny(entry, input.prefixes) || startsWithAny(entry, down)),
  ];
}
