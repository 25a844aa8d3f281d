import type { ToolClassification } from './classification.js';
import { RANK, strictest, type Decision } from './decision.js';
import { createPathRules, type PathRules } from './paths.js';
import { compileRules, testRule, type CompiledRule, type PolicyRuleSpec } from './rules.js';

interface PolicyVerdict {
  decision: Decision;
  reason: string;
}

/** The permission gate's verdict, kept on the call and handed to its tool: nothing after the gate derives it again. */
interface CallVerdict extends PolicyVerdict {
  /** The tool's own class reads every part as ALLOW, before rules: the Bash sandbox binds the workspace read-only for it. */
  readOnly: boolean;
}

type Classifier = (args: Record<string, unknown>) => ToolClassification;

/** A call as the permission gate asks about it: its arguments as sent and in their other spellings (Tool.canonicalArgs). */
interface CallQuestion {
  tool: string;
  args: Record<string, unknown>;
  spellings?: ReadonlyArray<Record<string, unknown>>;
  requiresApproval: boolean;
  classify?: Classifier;
}

interface CallRules {
  /** The verdict on a call in every spelling of its arguments, the strictest winning. */
  decideCall(question: CallQuestion): CallVerdict;
  /** Whether some rule on this tool looks at its arguments (only then are their spellings worth finding). */
  readsArgs(tool: string): boolean;
}

/** The config's rules compiled once into the one matcher the permission gate, the walkers, the Bash classifier and the mounts ask. */
export type Policy = CallRules & PathRules;

/** The verdicts of a call no rule looks at, made once: most calls get one of them. */
const NO_RULE: PolicyVerdict = Object.freeze({ decision: 'allow', reason: 'no rule matched' });
const BY_TOOL: PolicyVerdict = Object.freeze({ decision: 'ask', reason: 'the tool requires approval' });

const readOnlyClass = (own: ToolClassification | undefined) =>
  typeof own === 'object' && 'parts' in own && own.parts.every((part) => part.decision === 'allow');

/**
 * The most restrictive matching rule wins, whatever the order. A tool that
 * classifies its arguments has its class as the default; rules with a `when`
 * matching a part (a simple command) decide that part instead, and rules on
 * the whole call only narrow it. Unclassifiable is DENY. See docs/policy.md.
 */
export function createPolicy(specs: readonly PolicyRuleSpec[]): Policy {
  const compiled = compileRules(specs);
  const byTool = new Map<string, readonly CompiledRule[]>();
  const rulesFor = (tool: string): readonly CompiledRule[] => {
    let on = byTool.get(tool);
    if (on === undefined) {
      on = compiled.filter((rule) => rule.matchesTool(tool));
      byTool.set(tool, on);
    }
    return on;
  };
  const judge = (tool: string, args: Record<string, unknown>, requiresApproval: boolean, own: ToolClassification | undefined) => {
    const rulesOn = rulesFor(tool);
    if (own === undefined && rulesOn.length === 0) return requiresApproval ? BY_TOOL : NO_RULE;
    if (own === 'unknown') return { decision: 'deny' as const, reason: 'the tool cannot classify these arguments' };
    if (typeof own === 'object' && 'unknown' in own)
      return { decision: 'deny' as const, reason: `the tool cannot classify these arguments: ${own.unknown}` };
    let verdict = requiresApproval ? BY_TOOL : NO_RULE;
    const raise = (decision: Decision, reason: string) => {
      if (RANK[decision] > RANK[verdict.decision]) verdict = { decision, reason };
    };
    for (const rule of rulesOn) {
      const outcome = testRule(rule, args);
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
        if (rule.when.length === 0 || testRule(rule, part.args) !== 'match') continue;
        if (!decided || RANK[rule.decision] > RANK[decided.decision])
          decided = { decision: rule.decision, reason: `policy rule ${rule.index}` };
      }
      decided ??= { decision: part.decision, reason: part.reason };
      raise(decided.decision, decided.reason);
    }
    return verdict;
  };
  return {
    ...createPathRules(compiled),
    readsArgs: (tool) => rulesFor(tool).some((rule) => rule.when.length > 0),
    decideCall({ tool, args, spellings, requiresApproval, classify }) {
      const own = classify?.(args);
      let verdict = judge(tool, args, requiresApproval, own);
      if (spellings)
        for (const spelling of spellings) verdict = strictest(verdict, judge(tool, spelling, requiresApproval, classify?.(spelling)));
      return { decision: verdict.decision, reason: verdict.reason, readOnly: readOnlyClass(own) };
    },
  };
}

const compiledOnce = new WeakMap<readonly PolicyRuleSpec[], Policy>();

/** The policy of a configuration's (frozen) `policy.rules`, compiled once: the pipeline and the tools share it. */
export function policyOf(specs: readonly PolicyRuleSpec[]): Policy {
  let policy = compiledOnce.get(specs);
  if (!policy) {
    policy = createPolicy(specs);
    compiledOnce.set(specs, policy);
  }
  return policy;
}
