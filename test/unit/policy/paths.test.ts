import { describe, expect, it } from 'vitest';
import { createPolicy } from '../../../src/policy/index.js';

describe('rules for reading and rules for writing', () => {
  const rules = createPolicy([
    { tool: 'Read', when: { path: '^r/' }, decision: 'deny' },
    { tool: 'G*', when: { path: '^g/' }, decision: 'ask' },
    { tool: 'Write', when: { path: '^w/' }, decision: 'deny' },
    { tool: '*', when: { path: '^both/' }, decision: 'ask' },
    { tool: 'Edit', when: { path: '^e/', old_string: 'x' }, decision: 'deny' },
    { tool: 'Read', when: { path: '^allowed/' }, decision: 'allow' },
    { tool: 'Bash', when: { command: 'rm' }, decision: 'deny' },
  ]);

  it('a rule on a path of a tool that reads is a rule for reading; of Write or Edit, for writing', () => {
    expect(['r/x', 'g/x', 'w/x', 'both/x', 'e/x', 'allowed/x'].map((p) => rules.reading(p))).toEqual([
      'deny',
      'ask',
      'allow',
      'ask',
      'allow',
      'allow',
    ]);
    // A rule that also looks at another argument decides only its own tool's calls.
    expect(['r/x', 'g/x', 'w/x', 'both/x', 'e/x'].map((p) => rules.writing(p))).toEqual(['allow', 'allow', 'deny', 'ask', 'allow']);
    expect(rules.sandboxRules.map((r) => `${r.access} ${r.index}`)).toEqual(['read 0', 'read 1', 'read 3', 'write 2', 'write 3']);
  });

  it('a walk judges each entry; a rule that made the walk itself ask withholds nothing below it', () => {
    const judge = rules.entryJudge('LS', {}, ['.'])!;
    expect(['r/x', 'g/x', 'both/x', 'w/x'].map(judge)).toEqual(['deny', 'ask', 'ask', 'allow']);
    const approved = rules.entryJudge('LS', {}, ['g'])!;
    expect(['g/x', 'both/x'].map(approved)).toEqual(['ask', 'ask']);
    const approvedBelow = rules.entryJudge('LS', {}, ['g/sub'])!;
    expect(['g/sub/x', 'both/x', 'r/x'].map(approvedBelow)).toEqual(['allow', 'ask', 'deny']);
  });

  it('no rule for reading: walks judge nothing', () => {
    const none = createPolicy([
      { tool: 'Write', when: { path: '^w/' }, decision: 'deny' },
      { tool: 'Read', decision: 'ask' },
    ]);
    expect(none.withholds).toBe(false);
    expect(none.entryJudge('Grep', {}, ['.'])).toBeUndefined();
  });
});
