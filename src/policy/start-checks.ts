import { unreachableRules, type ToolShape } from './reach.js';
import { toolsetProblems, type ToolsetsConfig } from './toolsets.js';

/*
 * Rules and toolsets are checked against the tools served in two steps: what cannot name an MCP server's tool before the
 * servers start, the rest once they have answered; what may name a tool of a server not up is not checked.
 */

export interface ReachInput {
  /** As the file wrote them, valid or not (indexes are the file's). */
  written: { rules: readonly unknown[]; tools: readonly unknown[] };
  toolsets: ToolsetsConfig;
  prefixes: readonly string[];
}

/** The tools rules may name: `known` (every built-in, OpenAPI and answered servers' tools), then every tool the file declares. */
function ruleTargets(known: readonly ToolShape[], written: readonly unknown[]): ToolShape[] {
  const declared = written.flatMap((tool) =>
    typeof tool === 'object' && tool !== null && typeof (tool as { name?: unknown }).name === 'string'
      ? [{ name: (tool as { name: string }).name, parameters: (tool as { parameters?: unknown }).parameters }]
      : [],
  );
  return [...known.map((tool) => ({ name: tool.name, parameters: tool.parameters })), ...declared];
}

/** The rules whose `tool` starts with one of `prefixes` (or with `upstream: false` the others); one left out is `undefined`. */
function rulesOn(rules: readonly unknown[], prefixes: readonly string[], upstream: boolean): unknown[] {
  const mayNameUpstream = (rule: unknown) => {
    const tool = (rule as { tool?: unknown } | null)?.tool;
    return typeof tool === 'string' && prefixes.some((prefix) => tool.startsWith(prefix));
  };
  return rules.map((rule) => (mayNameUpstream(rule) === upstream ? rule : undefined));
}

const startsWithAny = (entry: string, prefixes: readonly string[]) => prefixes.some((prefix) => entry.startsWith(prefix));

export function localReachProblems(input: ReachInput, known: readonly ToolShape[], served: readonly string[]): string[] {
  return [
    ...unreachableRules(rulesOn(input.written.rules, input.prefixes, false), ruleTargets(known, input.written.tools)),
    ...toolsetProblems(input.toolsets, served, (entry) => startsWithAny(entry, input.prefixes)),
  ];
}

/** `answered[i]`: the server of `prefixes[i]` answered. */
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
