import type { PolicyRule } from '../../config/schema.js';
import { compilePolicyPattern, toolNameMatcher } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';
import type { LocalGate } from '../types.js';

type Decision = 'allow' | 'ask' | 'deny';
const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

export interface PolicyVerdict {
  decision: Decision;
  reason: string;
}

/** The permission policy: rules from the config, compiled once. */
export interface Policy {
  decide(tool: string, args: Record<string, unknown>, requiresApproval: boolean, classify?: (args: Record<string, unknown>) => string): PolicyVerdict;
  /** Whether some rule on this tool looks at its arguments: only then are their other spellings worth finding. */
  readsArgs(tool: string): boolean;
}

/**
 * Every matching rule counts and the most restrictive decision wins (deny over
 * ask over allow), so the order of rules never weakens a deny. A rule on an
 * argument whose value is not a string cannot classify the call: deny.
 */
export function createPolicy(rules: readonly PolicyRule[]): Policy {
  const compiled = rules.map((rule, i) => ({
    index: i,
    decision: rule.decision,
    matchesTool: toolNameMatcher(rule.tool),
    when: Object.entries(rule.when ?? {}).map(([arg, pattern]) => ({ arg, re: compilePolicyPattern(pattern) })),
  }));
  const reads = new Map<string, boolean>();
  return {
    readsArgs(tool) {
      let answer = reads.get(tool);
      if (answer === undefined) {
        answer = compiled.some((rule) => rule.when.length > 0 && rule.matchesTool(tool));
        reads.set(tool, answer);
      }
      return answer;
    },
    decide(tool, args, requiresApproval, classify) {
      let verdict: PolicyVerdict = requiresApproval
        ? { decision: 'ask', reason: 'the tool requires approval' }
        : { decision: 'allow', reason: 'no rule matched' };
      const raise = (decision: Decision, reason: string) => {
        if (RANK[decision] > RANK[verdict.decision]) verdict = { decision, reason };
      };
      for (const rule of compiled) {
        if (!rule.matchesTool(tool)) continue;
        let matches = true;
        for (const { arg, re } of rule.when) {
          const value = Object.hasOwn(args, arg) ? args[arg] : undefined;
          if (value === undefined) {
            matches = false;
            break;
          }
          if (typeof value !== 'string') {
            raise('deny', `policy rule ${rule.index} cannot classify argument ${arg}`);
            matches = false;
            break;
          }
          if (!re.test(value)) {
            matches = false;
            break;
          }
        }
        if (matches) raise(rule.decision, `policy rule ${rule.index}`);
      }
      if (classify) {
        const own = classify(args);
        if (own === 'unknown') raise('deny', 'the tool cannot classify these arguments');
        else if (own === 'ask' || own === 'deny') raise(own, 'the tool classifies these arguments as risky');
      }
      return verdict;
    },
  };
}

/** Gate 4: DENY stops the call here; ASK is settled with the approval store at admission. */
export const permissionGate: LocalGate = (call, _ctx, deps) => {
  const entry = call.entry!;
  const decide = (args: Record<string, unknown>) => deps.policy.decide(entry.name, args, entry.requiresApproval, entry.tool.classify?.bind(entry.tool));
  let verdict = decide(call.args!);
  // The rules also see the arguments as the tool will understand them (a path in its canonical spellings); the stricter decision wins.
  for (const spelling of call.spellings ?? []) {
    const other = decide(spelling);
    if (RANK[other.decision] > RANK[verdict.decision]) verdict = other;
  }
  if (verdict.decision === 'deny') {
    return new GatewayError('PERMISSION_DENIED', {
      message: `The policy denies this call to ${entry.name} (${verdict.reason}).`,
      suggestion: 'Do not retry this call; choose another approach or ask the user.',
    });
  }
  call.decision = verdict.decision;
  return undefined;
};
