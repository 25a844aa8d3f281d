import { toolAllowance, toolNameMatcher } from './reach.js';

/** The config's `toolsets`: set name → tool names or globs. */
export type ToolsetsConfig = Readonly<Record<string, readonly string[]>>;

/**
 * Whether a tool passes every one of `lists` (each names or globs, absent:
 * every tool): a key's `tools`, its toolsets (their union as one list) and a
 * request's toolset are each such a list, and a caller may use the tools
 * all of them allow.
 */
export function allowedByAll(lists: ReadonlyArray<readonly string[] | undefined>): (name: string) => boolean {
  const checks = lists.filter((list): list is readonly string[] => list !== undefined).map(toolAllowance);
  return (name) => checks.every((allows) => allows(name));
}

/** The names or globs of the sets `names`, as one list (a tool in any of them). */
export function toolsetPatterns(toolsets: ToolsetsConfig, names: readonly string[]): string[] {
  return names.flatMap((name) => toolsets[name] ?? []);
}

/**
 * Entries that name no tool: a name not served and a glob that matches
 * none, "toolsets.coding.2: ..." each. A typo there would quietly give an
 * agent fewer tools than meant, so it stops start-up. Entries `unchecked`
 * says may name a tool not known yet (an MCP server not up) are skipped.
 */
export function toolsetProblems(
  toolsets: ToolsetsConfig,
  names: readonly string[],
  unchecked: (entry: string) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  for (const [set, entries] of Object.entries(toolsets)) {
    entries.forEach((entry, i) => {
      if (unchecked(entry)) return;
      const matches = toolNameMatcher(entry);
      if (!names.some((name) => matches(name))) {
        problems.push(
          `toolsets.${set}.${i}: "${entry}" names no tool and matches none as a glob; check the name (GET /tools lists them), or remove it`,
        );
      }
    });
  }
  return problems;
}
