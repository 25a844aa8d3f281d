import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import { createPolicy } from '../../../../src/policy/index.js';

describe('permission policy: the most restrictive matching rule decides', () => {
  it('no matching rule allows a registered tool; requires_approval asks', () => {
    const policy = createPolicy([]);
    expect(policy.decide('Read', {}, false).decision).toBe('allow');
    expect(policy.decide('Write', {}, true).decision).toBe('ask');
  });

  it('the most restrictive matching rule wins, whatever the order', () => {
    const rules = [
      { tool: 'Bash', decision: 'allow' as const },
      { tool: 'B*', when: { command: '^rm ' }, decision: 'deny' as const },
      { tool: 'Bash', when: { command: '^mv ' }, decision: 'ask' as const },
    ];
    for (const order of [rules, [...rules].reverse()]) {
      const policy = createPolicy(order);
      expect(policy.decide('Bash', { command: 'rm -rf x' }, false).decision).toBe('deny');
      expect(policy.decide('Bash', { command: 'mv a b' }, false).decision).toBe('ask');
      expect(policy.decide('Bash', { command: 'ls' }, false).decision).toBe('allow');
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
      policy.decide(first, { path: 'secrets/key' }, false);
      expect(policy.decide('Read', { path: 'secrets/key' }, false).decision).toBe('deny');
      expect(policy.decide('Read', { path: 'src/a.ts' }, false).decision).toBe('allow');
      expect(policy.decide('Write', { path: 'secrets/key' }, false).decision).toBe('ask');
      expect(policy.decide('LS', { path: 'secrets/key' }, false).decision).toBe('allow');
      expect([policy.readsArgs('Read'), policy.readsArgs('Write'), policy.readsArgs('LS')]).toEqual([true, false, false]);
    }
  });

  it('an explicit allow never lifts requires_approval', () => {
    expect(createPolicy([{ tool: 'Write', decision: 'allow' }]).decide('Write', {}, true).decision).toBe('ask');
  });

  it('a rule on an argument that is not a string denies (fail closed); an absent argument does not match', () => {
    const policy = createPolicy([{ tool: 'Bash', when: { command: '^ls$' }, decision: 'allow' }]);
    expect(policy.decide('Bash', { command: { nested: 'ls' } }, false).decision).toBe('deny');
    expect(policy.decide('Bash', {}, false).decision).toBe('allow');
  });

  it("a tool's own classifier: unknown denies, ask and deny raise the decision", () => {
    const policy = createPolicy([]);
    expect(policy.decide('Bash', {}, false, () => 'unknown').decision).toBe('deny');
    expect(policy.decide('Bash', {}, false, () => 'ask').decision).toBe('ask');
    expect(policy.decide('Bash', {}, false, () => 'allow').decision).toBe('allow');
  });

  it('rules match in linear time: a pattern that backtracks exponentially in JavaScript decides at once', () => {
    const policy = createPolicy([{ tool: 'Write', when: { content: '^(a|aa)*$' }, decision: 'deny' }]);
    const started = performance.now();
    expect(policy.decide('Write', { content: `${'a'.repeat(50_000)}b` }, false).decision).toBe('allow');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a pattern RE2 does not accept is a config error, not a start-up crash', () => {
    expect(() => configFrom({ policy: { rules: [{ tool: 'Write', when: { path: '(?=secret)' }, decision: 'deny' }] } })).toThrow(
      /lookaround\/backreferences are not supported \(RE2\)/,
    );
  });
});
