import { toolAllowance, toolNameMatcher } from './reach.js';

export type ToolsetsConfig = Readonly<Record<string, readonly string[]>>;

/** Whether a tool passes every one of `lists` (a key's tools, its toolsets, a request's toolset; absent: every tool). */
export function allowedByAll(lists: ReadonlyArray<readonly string[] | undefined>): (name: string) => boolean {
  const checks = lists.filter((list): list is readonly string[] => list !== undefined).map(toolAllowance);
  return (name) => checks.every((allows) => allows(name));
}

export function toolsetPatterns(toolsets: ToolsetsConfig, names: readonly string[]): string[] {
  return names.flatMap((name) => toolsets[name] ?? []);
}

/** Entries that name no tool ("toolsets.coding.2: ..."), which stop start-up; `unchecked` entries are skipped. */
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
