import { describe, expect, it } from 'vitest';
import { compilePolicyPattern, createPathRules, matchesEveryExtension, pathShape } from '../../../src/policy/index.js';

describe('what a path pattern says about where its matches lie', () => {
  it.each([
    ['^secrets/', { prefix: 'secrets/', exact: false }],
    ['^(?:secrets)/', { prefix: 'secrets/', exact: false }],
    ['^secret[s]/x', { prefix: 'secrets/x', exact: false }],
    ['^\\.env$', { prefix: '.env', exact: true }],
    ['^config/prod\\.yml$', { prefix: 'config/prod.yml', exact: true }],
    ['^secrets/.*\\.key$', { prefix: 'secrets/', exact: false }],
    // Not anchored at the start of the text: a match may start anywhere.
    ['\\.env$', { exact: false }],
    ['(?m)^secrets/', { exact: false }],
    ['^a|^b/', { exact: false }],
    // A case-folded letter is no literal.
    ['(?i)^secrets/', { prefix: '', exact: false }],
  ])('%s', (pattern, shape) => {
    expect(pathShape(compilePolicyPattern(pattern))).toEqual(shape);
  });
});

describe('whether every path below a directory matches', () => {
  it.each([
    ['^secrets/', 'secrets/', true],
    ['^secrets', 'secrets/', true],
    ['(?i)^secrets/', 'SECRETS/', true],
    ['(^|/)node_modules/', 'a/b/node_modules/', true],
    ['secrets', 'x/secrets/', true],
    ['', '', true],
    // Only some paths below match, or the match needs more than the directory.
    ['^secrets/.*\\.key$', 'secrets/', false],
    ['^secrets/.', 'secrets/', false],
    ['^secrets$', 'secrets/', false],
    ['\\.env$', 'a.env/', false],
    ['^secrets/\\b', 'secrets/', false],
    ['^public/', 'secrets/', false],
  ])('%s below %s: %s', (pattern, dir, every) => {
    expect(matchesEveryExtension(compilePolicyPattern(pattern), dir)).toBe(every);
  });
});

describe('rules for reading and rules for writing', () => {
  const rules = createPathRules([
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
    const none = createPathRules([
      { tool: 'Write', when: { path: '^w/' }, decision: 'deny' },
      { tool: 'Read', decision: 'ask' },
    ]);
    expect(none.withholds).toBe(false);
    expect(none.entryJudge('Grep', {}, ['.'])).toBeUndefined();
  });
});
