import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import { createPolicy } from '../../../../src/policy/index.js';

describe('permission policy: the most restrictive matching rule decides', () => {
  it('no matching rule allows a registered tool; requires_approval asks', () => {
    const policy = createPolicy([]);
    expect(policy.decideCall({ tool: 'Read', args: {}, requiresApproval: false }).decision).toBe('allow');
    expect(policy.decideCall({ tool: 'Write', args: {}, requiresApproval: true }).decision).toBe('ask');
  });

  it('the most restrictive matching rule wins, whatever the order', () => {
    const rules = [
      { tool: 'Bash', decision: 'allow' as const },
      { tool: 'B*', when: { command: '^rm ' }, decision: 'deny' as const },
      { tool: 'Bash', when: { command: '^mv ' }, decision: 'ask' as const },
    ];
    for (const order of [rules, [...rules].reverse()]) {
      const policy = createPolicy(order);
      expect(policy.decideCall({ tool: 'Bash', args: { command: 'rm -rf x' }, requiresApproval: false }).decision).toBe('deny');
      expect(policy.decideCall({ tool: 'Bash', args: { command: 'mv a b' }, requiresApproval: false }).decision).toBe('ask');
      expect(policy.decideCall({ tool: 'Bash', args: { command: 'ls' }, requiresApproval: false }).decision).toBe('allow');
    }
  });

  it('readsArgs: only a rule with `when` on the tool makes its arguments worth resolving', () => {
    const policy = createPolicy([
      { tool: '{Read,Edit}', when: { path: '^secrets/' }, decision: 'deny' },
      { tool: 'LS', decision: 'ask' },
    ]);
    expect([policy.readsArgs('Read'), policy.readsArgs('Edit'), policy.readsArgs('LS'), policy.readsArgs('Glob')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('the rules on one tool never decide another, whichever tool the policy decided first', () => {
    const rules = [
      { tool: 'Read', when: { path: '^secrets/' }, decision: 'deny' as const },
      { tool: 'Write', decision: 'ask' as const },
    ];
    for (const first of ['Read', 'Write', 'LS']) {
      const policy = createPolicy(rules);
      policy.decideCall({ tool: first, args: { path: 'secrets/key' }, requiresApproval: false });
      expect(policy.decideCall({ tool: 'Read', args: { path: 'secrets/key' }, requiresApproval: false }).decision).toBe('deny');
      expect(policy.decideCall({ tool: 'Read', args: { path: 'src/a.ts' }, requiresApproval: false }).decision).toBe('allow');
      expect(policy.decideCall({ tool: 'Write', args: { path: 'secrets/key' }, requiresApproval: false }).decision).toBe('ask');
      expect(policy.decideCall({ tool: 'LS', args: { path: 'secrets/key' }, requiresApproval: false }).decision).toBe('allow');
      expect([policy.readsArgs('Read'), policy.readsArgs('Write'), policy.readsArgs('LS')]).toEqual([true, false, false]);
    }
  });

  it('an explicit allow never lifts requires_approval', () => {
    expect(
      createPolicy([{ tool: 'Write', decision: 'allow' }]).decideCall({ tool: 'Write', args: {}, requiresApproval: true }).decision,
    ).toBe('ask');
  });

  it('a rule on an argument that is not a string denies (fail closed); an absent argument does not match', () => {
    const policy = createPolicy([{ tool: 'Bash', when: { command: '^ls$' }, decision: 'allow' }]);
    expect(policy.decideCall({ tool: 'Bash', args: { command: { nested: 'ls' } }, requiresApproval: false }).decision).toBe('deny');
    expect(policy.decideCall({ tool: 'Bash', args: {}, requiresApproval: false }).decision).toBe('allow');
  });

  it("a tool's own classifier: unknown denies, ask and deny raise the decision", () => {
    const policy = createPolicy([]);
    expect(policy.decideCall({ tool: 'Bash', args: {}, requiresApproval: false, classify: () => 'unknown' }).decision).toBe('deny');
    expect(policy.decideCall({ tool: 'Bash', args: {}, requiresApproval: false, classify: () => 'ask' }).decision).toBe('ask');
    expect(policy.decideCall({ tool: 'Bash', args: {}, requiresApproval: false, classify: () => 'allow' }).decision).toBe('allow');
  });

  it('rules match in linear time: a pattern that backtracks exponentially in JavaScript decides at once', () => {
    const policy = createPolicy([{ tool: 'Write', when: { content: '^(a|aa)*$' }, decision: 'deny' }]);
    const started = performance.now();
    expect(policy.decideCall({ tool: 'Write', args: { content: `${'a'.repeat(50_000)}b` }, requiresApproval: false }).decision).toBe(
      'allow',
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a pattern RE2 does not accept is a config error, not a start-up crash', () => {
    expect(() => configFrom({ policy: { rules: [{ tool: 'Write', when: { path: '(?=secret)' }, decision: 'deny' }] } })).toThrow(
      /lookaround\/backreferences are not supported \(RE2\)/,
    );
  });
});
