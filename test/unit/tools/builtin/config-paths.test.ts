import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../../../src/config/schema.js';
import { createPolicy } from '../../../../src/policy/index.js';
import { classifyPath } from '../../../../src/tools/builtin/config-paths.js';

const decide = (rules: PolicyRule[], path: string, requiresApproval = false) =>
  createPolicy(rules).decideCall({ tool: 'Write', args: { path, content: 'x' }, requiresApproval, classify: classifyPath }).decision;

describe('Write/Edit class: ASK for files that configure programs, the default that matching rules may override', () => {
  it('without rules: ASK for git and shell config, ALLOW for every other path', () => {
    expect(decide([], '.git/config')).toBe('ask');
    expect(decide([], '.bashrc')).toBe('ask');
    expect(decide([], 'src/index.ts')).toBe('allow');
    expect(decide([], 'sub/.bashrc')).toBe('allow');
  });

  it('without case, as a case-insensitive file system names them: .GIT/config is .git/config', () => {
    for (const path of [
      '.GIT/config',
      'sub/.Git/hooks/pre-commit',
      '.GitAttributes',
      'lib/.GITMODULES',
      '.BASHRC',
      '.Config/Git/attributes',
    ]) {
      expect(decide([], path)).toBe('ask');
    }
  });

  it('a rule with `when` on the path decides instead, widening or narrowing', () => {
    expect(decide([{ tool: 'Write', when: { path: '^\\.git/' }, decision: 'allow' }], '.git/config')).toBe('allow');
    expect(decide([{ tool: 'Write', when: { path: '^\\.git/' }, decision: 'allow' }], '.gitattributes')).toBe('ask');
    expect(decide([{ tool: 'Write', when: { path: '^\\.git/' }, decision: 'deny' }], '.git/config')).toBe('deny');
  });

  it('a rule on the whole call only narrows: `tool: "*"` allow does not lift the ASK, deny still denies', () => {
    expect(decide([{ tool: '*', decision: 'allow' }], '.git/config')).toBe('ask');
    expect(decide([{ tool: 'Write', decision: 'deny' }], '.git/config')).toBe('deny');
    expect(decide([{ tool: 'Write', decision: 'deny' }], 'src/a.ts')).toBe('deny');
  });

  it('requires_approval keeps every path at ASK, even one a rule allows', () => {
    expect(decide([], 'src/a.ts', true)).toBe('ask');
    expect(decide([{ tool: 'Write', when: { path: '^\\.git/' }, decision: 'allow' }], '.git/config', true)).toBe('ask');
  });

  it('a path argument that is not a string is left to the tool (its own INVALID_ARGS)', () => {
    expect(classifyPath({ path: 3 })).toBe('allow');
  });
});
