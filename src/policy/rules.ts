import type { RE2JS } from 're2js';
import type { Decision } from './decision.js';
import { compilePolicyPattern } from './pattern.js';
import { toolNameMatcher } from './reach.js';

/** One rule of `policy.rules`, as the config file gives it. */
export interface PolicyRuleSpec {
  tool: string;
  when?: Record<string, string>;
  decision: Decision;
}

/** A rule with its tool glob and argument patterns compiled once, for every question to the policy. */
export interface CompiledRule {
  index: number;
  decision: Decision;
  matchesTool: (name: string) => boolean;
  /** The `when` patterns in the file's order. */
  when: ReadonlyArray<{ arg: string; re: RE2JS }>;
}

export function compileRules(specs: readonly PolicyRuleSpec[]): CompiledRule[] {
  return specs.map((rule, index) => ({
    index,
    decision: rule.decision,
    matchesTool: toolNameMatcher(rule.tool),
    when: Object.entries(rule.when ?? {}).map(([arg, pattern]) => ({ arg, re: compilePolicyPattern(pattern) })),
  }));
}

/** Whether every `when` pattern matches its argument; a missing one is no match, a non-string one `unclassifiable`. */
export function testRule(rule: CompiledRule, args: Record<string, unknown>): 'match' | 'no' | 'unclassifiable' {
  for (const { arg, re } of rule.when) {
    const value = Object.hasOwn(args, arg) ? args[arg] : undefined;
    if (value === undefined) return 'no';
    if (typeof value !== 'string') return 'unclassifiable';
    if (!re.test(value)) return 'no';
  }
  return 'match';
}
