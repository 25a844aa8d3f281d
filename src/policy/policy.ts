import type { ToolClassification } from './classification.js';
import { RANK, type Decision } from './decision.js';
import { compilePolicyPattern } from './pattern.js';
import { toolNameMatcher } from './reach.js';

/** One rule of `policy.rules`, as the config file gives it. */
export interface PolicyRuleSpec {
  tool: string;
  when?: Record<string, string>;
  decision: Decision;
}

interface PolicyVerdict {
  decision: Decision;
  reason: string;
}

/** The permission policy: rules from the config, compiled once. */
export interface Policy {
  decide(
    tool: string,
    args: Record<string, unknown>,
    requiresApproval: boolean,
    classify?: (args: Record<string, unknown>) => ToolClassification,
  ): PolicyVerdict;
  /** Whether some rule on this tool looks at its arguments: only then are their other spellings worth finding. */
  readsArgs(tool: string): boolean;
}

/**
 * Every matching rule counts and the most restrictive decision wins (deny over
 * ask over allow), so the order of rules never weakens a deny. A rule on an
 * argument whose value is not a string cannot classify the call: deny.
 *
 * A tool that classifies its own arguments (Bash, see docs/bash.md) has its
 * class as the default instead of ALLOW. For each part it names (a simple
 * command), the rules with a `when` that match the part decide it instead of
 * its class; the most restrictive part decides the call. Rules on the whole
 * call only narrow it, so a `tool: "*"` rule without `when` never opens the
 * shell; a call the tool cannot classify is DENY whatever the rules say.
 */
export function createPolicy(rules: readonly PolicyRuleSpec[]): Policy {
  const compiled = rules.map((rule, i) => ({
    index: i,
    decision: rule.decision,
    matchesTool: toolNameMatcher(rule.tool),
    when: Object.entries(rule.when ?? {}).map(([arg, pattern]) => ({ arg, re: compilePolicyPattern(pattern) })),
  }));
  type Rule = (typeof compiled)[number];
  /** Whether the rule's `when` holds for `args`; `unclassifiable` when it names an argument that is not a string. */
  const test = (rule: Rule, args: Record<string, unknown>): 'match' | 'no' | 'unclassifiable' => {
    for (const { arg, re } of rule.when) {
      const value = Object.hasOwn(args, arg) ? args[arg] : undefined;
      if (value === undefined) return 'no';
      if (typeof value !== 'string') return 'unclassifiable';
      if (!re.test(value)) return 'no';
    }
    return 'match';
  };
  // Per tool name, not per call: decide runs for every call and each of its spellings, and the set of tools is small.
  const byTool = new Map<string, readonly Rule[]>();
  const rulesFor = (tool: string): readonly Rule[] => {
    let on = byTool.get(tool);
    if (on === undefined) {
      on = compiled.filter((rule) => rule.matchesTool(tool));
      byTool.set(tool, on);
    }
    return on;
  };
  return {
    readsArgs: (tool) => rulesFor(tool).some((rule) => rule.when.length > 0),
    decide(tool, args, requiresApproval, classify) {
      const own = classify?.(args);
      if (own === 'unknown') return { decision: 'deny', reason: 'the tool cannot classify these arguments' };
      if (typeof own === 'object' && 'unknown' in own)
        return { decision: 'deny', reason: `the tool cannot classify these arguments: ${own.unknown}` };
      let verdict: PolicyVerdict = requiresApproval
        ? { decision: 'ask', reason: 'the tool requires approval' }
        : { decision: 'allow', reason: 'no rule matched' };
      const raise = (decision: Decision, reason: string) => {
        if (RANK[decision] > RANK[verdict.decision]) verdict = { decision, reason };
      };
      const rulesOn = rulesFor(tool);
      for (const rule of rulesOn) {
        const outcome = test(rule, args);
        if (outcome === 'unclassifiable')
          raise(
            'deny',
            `policy rule ${rule.index} cannot classify argument ${rule.when.find(({ arg }) => typeof args[arg] !== 'string')!.arg}`,
          );
        else if (outcome === 'match') raise(rule.decision, `policy rule ${rule.index}`);
      }
      if (own === undefined) return verdict;
      const parts = typeof own === 'string' ? [{ args, decision: own, reason: 'the tool classifies these arguments as risky' }] : own.parts;
      for (const part of parts) {
        let decided: PolicyVerdict | undefined;
        for (const rule of rulesOn) {
          if (rule.when.length === 0 || test(rule, part.args) !== 'match') continue;
          if (!decided || RANK[rule.decision] > RANK[decided.decision])
            decided = { decision: rule.decision, reason: `policy rule ${rule.index}` };
        }
        decided ??= { decision: part.decision, reason: part.reason };
        raise(decided.decision, decided.reason);
      }
      return verdict;
    },
  };
}
