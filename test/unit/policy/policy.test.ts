import { describe, expect, it } from 'vitest';
import { createPolicy, policyOf, type ToolClassification } from '../../../src/policy/index.js';

const parts = (...named: Array<[command: string, decision: 'allow' | 'ask' | 'deny']>): ToolClassification => ({
  parts: named.map(([command, decision]) => ({ args: { command }, decision, reason: command })),
});

describe('the verdict on a call, decided once at the permission gate', () => {
  it('every spelling of the arguments is judged, the strictest winning', () => {
    const policy = createPolicy([{ tool: 'Read', when: { path: '^secrets/' }, decision: 'deny' }]);
    const verdict = policy.decideCall({
      tool: 'Read',
      args: { path: 'link/k' },
      spellings: [{ path: 'secrets/k' }],
      requiresApproval: false,
    });
    expect(verdict).toMatchObject({ decision: 'deny', reason: 'policy rule 0' });
    expect(policy.decideCall({ tool: 'Read', args: { path: 'link/k' }, requiresApproval: false }).decision).toBe('allow');
  });

  it("read-only is the tool's own class of every part as ALLOW, whatever the rules decide", () => {
    const policy = createPolicy([
      { tool: 'Bash', when: { command: '^narrow$' }, decision: 'ask' },
      { tool: 'Bash', when: { command: '^wide$' }, decision: 'allow' },
    ]);
    const ask = (classify: ToolClassification) =>
      policy.decideCall({ tool: 'Bash', args: { command: 'x' }, requiresApproval: false, classify: () => classify });
    // A rule made it ASK; once approved it still runs read-only.
    expect(ask(parts(['narrow', 'allow'], ['ls', 'allow']))).toMatchObject({ decision: 'ask', readOnly: true });
    // A rule widened the ASK part: allowed, and writable.
    expect(ask(parts(['ls', 'allow'], ['wide', 'ask']))).toMatchObject({ decision: 'allow', readOnly: false });
    expect(ask('allow')).toMatchObject({ readOnly: false });
    expect(policy.decideCall({ tool: 'Read', args: {}, requiresApproval: false }).readOnly).toBe(false);
  });

  it('is the same matcher for the same configuration, compiled once', () => {
    const rules = [{ tool: 'Read', decision: 'ask' as const }];
    expect(policyOf(rules)).toBe(policyOf(rules));
    expect(policyOf(rules)).not.toBe(policyOf([...rules]));
  });
});
