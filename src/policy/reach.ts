import picomatch from 'picomatch';
import { isRecord } from '../protocol/json.js';

export function toolNameMatcher(glob: string): (name: string) => boolean {
  return picomatch(glob);
}

/** Whether a key whose tool list is `patterns` (names or globs; absent: every tool) may use a tool. */
export function toolAllowance(patterns: readonly string[] | undefined): (name: string) => boolean {
  if (!patterns) return () => true;
  const matchers = patterns.map((pattern) => picomatch(pattern));
  return (name) => matchers.some((m) => m(name));
}

export interface ToolShape {
  name: string;
  /** Its arguments' JSON Schema; undefined when not known (the tool's own config is broken). */
  parameters?: unknown;
}

function declared(tool: ToolShape): string[] | undefined {
  if (!isRecord(tool.parameters)) return undefined;
  const properties = tool.parameters.properties;
  return isRecord(properties) ? Object.keys(properties) : [];
}

const list = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));

/**
 * Rules that can never match (a typo in a deny rule would silently allow), as "policy.rules.N.…: problem; fix": a `tool`
 * that names no tool and matches none, or a `when` argument no tool it matches declares. `rules` are read as written.
 */
export function unreachableRules(rules: readonly unknown[], tools: readonly ToolShape[]): string[] {
  const problems: string[] = [];
  rules.forEach((rule, i) => {
    if (!isRecord(rule) || typeof rule.tool !== 'string' || rule.tool === '') return;
    const glob = rule.tool;
    const matched = tools.filter((tool) => toolNameMatcher(glob)(tool.name));
    if (matched.length === 0) {
      problems.push(
        `policy.rules.${i}.tool: "${glob}" names no tool and matches none as a glob; use one of ${list(tools.map((t) => t.name))}, or remove the rule`,
      );
      return;
    }
    if (!isRecord(rule.when)) return;
    const args = Object.keys(rule.when);
    const shapes = matched.map(declared);
    if (args.length === 0 || shapes.some((shape) => shape === undefined)) return;
    const which = matched.length === 1 ? matched[0]!.name : `no tool matching "${glob}" (${list(matched.map((t) => t.name))})`;
    let missing = false;
    for (const arg of args) {
      if (shapes.some((shape) => shape!.includes(arg))) continue;
      missing = true;
      const known = [...new Set(shapes.flatMap((shape) => shape!))];
      problems.push(
        matched.length === 1
          ? `policy.rules.${i}.when.${arg}: ${which} has no argument "${arg}"; use one of its arguments (${list(known)})`
          : `policy.rules.${i}.when.${arg}: ${which} has an argument "${arg}"; use one of theirs (${list(known)})`,
      );
    }
    if (!missing && !shapes.some((shape) => args.every((arg) => shape!.includes(arg)))) {
      problems.push(`policy.rules.${i}.when: ${which} has all of the arguments ${args.join(', ')}; split the rule, one per tool`);
    }
  });
  return problems;
}
