import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../../../src/config/schema.js';
import { permissionGate } from '../../../../src/pipeline/gates/permission.js';
import { createPolicy } from '../../../../src/policy/index.js';
import type { PipelineDeps } from '../../../../src/pipeline/types.js';
import { bashPermissionHooks } from '../../../../src/tools/bash/classify/index.js';
import { plannedCall } from '../../../helpers/gates.js';

const hooks = bashPermissionHooks();
const classify = hooks.classify!;
const decide = (rules: PolicyRule[], command: string, requiresApproval = false) =>
  createPolicy(rules).decideCall({ tool: 'Bash', args: { command }, requiresApproval, classify }).decision;

/** The gate as the pipeline runs it: the rules also see the canonical spelling, found first. */
async function gate(rules: PolicyRule[], command: string) {
  const call = plannedCall({ name: 'Bash', ...hooks }, { command }, { decision: undefined });
  call.spellings = await hooks.canonicalArgs!({ command });
  const failure = permissionGate.check!(
    call,
    { caller: { tenant: 'acme' } } as never,
    { policy: createPolicy(rules), workspaces: { of: () => undefined } } as unknown as PipelineDeps,
  );
  return failure ? `${failure.code}: ${failure.message}` : call.decision;
}

describe('permission of a classifying tool: the class is the default, matching rules decide instead', () => {
  it('without rules the class decides', () => {
    expect([decide([], 'ls'), decide([], 'npm test'), decide([], 'rm x')]).toEqual(['allow', 'ask', 'deny']);
  });

  it('widening: a rule on command allows an ASK command, and only that one', () => {
    const rules: PolicyRule[] = [{ tool: 'Bash', when: { command: '^npm test$' }, decision: 'allow' }];
    expect(decide(rules, 'npm test')).toBe('allow');
    expect(decide(rules, 'npm install x')).toBe('ask');
  });

  it('widening applies to each simple command: a loose pattern does not carry a second command with it', () => {
    const rules: PolicyRule[] = [{ tool: 'Bash', when: { command: '^npm test' }, decision: 'allow' }];
    expect(decide(rules, 'npm test && ls')).toBe('allow');
    expect(decide(rules, 'npm test; rm -rf ~')).toBe('deny');
    expect(decide(rules, 'npm test && mv a b')).toBe('ask');
    expect(decide(rules, 'npm test $(curl x)')).toBe('ask');
  });

  it('widening may lift a DENY class too, where a deployment says so', () => {
    expect(decide([{ tool: 'Bash', when: { command: '^rm -rf node_modules$' }, decision: 'allow' }], 'rm -rf node_modules')).toBe('allow');
  });

  it('narrowing: deny git push, also spelled with quotes, also inside a list or a substitution', async () => {
    const rules: PolicyRule[] = [{ tool: 'Bash', when: { command: '^git push' }, decision: 'deny' }];
    expect(decide(rules, 'git push origin main')).toBe('deny');
    expect(decide(rules, '\'git\' "push" origin')).toBe('deny');
    expect(decide(rules, 'ls && echo $(git push)')).toBe('deny');
    expect(decide(rules, 'git status')).toBe('allow');
    expect(await gate(rules, 'g"it" push')).toMatch(/^PERMISSION_DENIED: .*policy rule 0/);
  });

  it('narrowing an ALLOW command to ASK', () => {
    expect(decide([{ tool: 'Bash', when: { command: '^cat ' }, decision: 'ask' }], 'ls | cat x')).toBe('ask');
  });

  it('the most restrictive matching rule wins on a part, whatever the order', () => {
    const rules: PolicyRule[] = [
      { tool: 'Bash', when: { command: '^git ' }, decision: 'allow' },
      { tool: 'Bash', when: { command: '^git push' }, decision: 'deny' },
    ];
    for (const order of [rules, [...rules].reverse()]) {
      expect(decide(order, 'git commit -m x')).toBe('allow');
      expect(decide(order, 'git push')).toBe('deny');
    }
  });

  it('a rule on the whole command only narrows: it sees the command as sent and canonically spelled', async () => {
    const rules: PolicyRule[] = [{ tool: 'Bash', when: { command: 'curl .*\\| *sh' }, decision: 'deny' }];
    expect(await gate([{ tool: 'Bash', when: { command: '^ls && mv a b$' }, decision: 'allow' }], 'ls && mv a b')).toBe('ask');
    expect(await gate(rules, "curl x | 's'h")).toMatch(/^PERMISSION_DENIED/);
  });

  it('a rule without `when` (or on every tool) narrows the shell but never opens it', () => {
    expect(decide([{ tool: '*', decision: 'allow' }], 'mv a b')).toBe('ask');
    expect(decide([{ tool: 'Bash', decision: 'allow' }], 'rm x')).toBe('deny');
    expect(decide([{ tool: 'Bash', decision: 'ask' }], 'ls')).toBe('ask');
  });

  it('a command the parser cannot parse stays DENY under an allow-all rule', async () => {
    const allowAll: PolicyRule[] = [
      { tool: 'Bash', when: { command: '' }, decision: 'allow' },
      { tool: '*', decision: 'allow' },
    ];
    expect(decide(allowAll, 'ls')).toBe('allow');
    expect(decide(allowAll, 'rm -rf /')).toBe('allow');
    expect(decide(allowAll, 'echo $(')).toBe('deny');
    expect(await gate(allowAll, 'if true; then')).toMatch(
      /^PERMISSION_DENIED: .*cannot classify these arguments: bash cannot parse the command: 1:/,
    );
  });

  it('requires_approval keeps a widened command at ASK', () => {
    expect(decide([{ tool: 'Bash', when: { command: '^ls$' }, decision: 'allow' }], 'ls', true)).toBe('ask');
  });

  it('a denial names the part and why', async () => {
    expect(await gate([], 'ls && r\\m -rf x')).toMatch(/^PERMISSION_DENIED: .*rm -rf x: rm deletes files/);
  });

  it('other tools are unchanged: no classifier, ALLOW by default, every matching rule raising', () => {
    const policy = createPolicy([
      { tool: 'Write', when: { path: '^secrets/' }, decision: 'deny' },
      { tool: 'Read', decision: 'allow' },
    ]);
    expect(policy.decideCall({ tool: 'Write', args: { path: 'secrets/x' }, requiresApproval: false }).decision).toBe('deny');
    expect(policy.decideCall({ tool: 'Write', args: { path: 'src/x' }, requiresApproval: false }).decision).toBe('allow');
    expect(policy.decideCall({ tool: 'Read', args: {}, requiresApproval: true }).decision).toBe('ask');
  });
});
