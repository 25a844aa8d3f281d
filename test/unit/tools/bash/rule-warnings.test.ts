import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import { createPolicy, type PolicyRuleSpec } from '../../../../src/policy/index.js';
import { mountWarnings } from '../../../../src/tools/bash/rule-warnings.js';

/** What the mount plan cannot hold of a rule is said at start-up, rule by rule: never silently weaker inside the sandbox. */
const warnings = (rules: PolicyRuleSpec[], bash: Record<string, unknown> = {}) =>
  mountWarnings(createPolicy(rules), configFrom({ workspace: '/tmp', builtins: { Bash: bash } }).builtins.Bash);

describe('start-up warnings of the sandbox mount plan', () => {
  it.each([
    ['^/srv/ws/secrets/', /^policy\.rules\.0: its path pattern starts '\/srv\/ws\/secrets\/', a spelling the Bash sandbox never tests/],
    ['^\\./secrets/', /^policy\.rules\.0: its path pattern starts '\.\/secrets\/'/],
    ['^app/\\.\\./secrets', /^policy\.rules\.0: its path pattern starts 'app\/\.\.\/secrets'/],
    ['conf/prod\\.yml$', /^policy\.rules\.0: its path pattern is not anchored .* through a directory link/],
  ])('a rule for reading on %s is named with what it leaves to the classifier', (path, said) => {
    expect(warnings([{ tool: 'Read', when: { path }, decision: 'deny' }])).toEqual([expect.stringMatching(said)]);
  });

  it('a rule on path and another argument makes no mount, and says so', () => {
    expect(warnings([{ tool: 'Grep', when: { path: '^src', pattern: 'password' }, decision: 'deny' }])).toEqual([
      expect.stringMatching(/^policy\.rules\.0: its when tests another argument besides path.* masks nothing/),
    ]);
  });

  it('rules the plan holds whole warn of nothing', () => {
    expect(
      warnings([
        { tool: '*', when: { path: '^secrets/' }, decision: 'deny' },
        { tool: 'Read', when: { path: '(^|/)\\.env$' }, decision: 'ask' },
        { tool: 'Read', when: { path: '(?:^|/)node_modules(?:/|$)' }, decision: 'deny' },
        { tool: 'Read', when: { path: '^\\.env\\.[a-z]+$' }, decision: 'deny' },
        { tool: 'Write', when: { path: '^deploy/' }, decision: 'deny' },
      ]),
    ).toEqual([]);
  });

  it('git_history: visible is said when a rule for reading exists', () => {
    const rule: PolicyRuleSpec = { tool: 'Read', when: { path: '^secrets/' }, decision: 'deny' };
    expect(warnings([rule], { git_history: 'visible' })).toEqual([expect.stringMatching(/^builtins\.Bash\.git_history is visible/)]);
    expect(warnings([], { git_history: 'visible' })).toEqual([]);
  });

  it('git_history is validated at start-up', () => {
    expect(() => configFrom({ workspace: '/tmp', builtins: { Bash: { git_history: 'sometimes' } } })).toThrow(
      /builtins\.Bash\.git_history: must be one of "masked", "visible"/,
    );
  });
});
