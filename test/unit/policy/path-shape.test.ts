import { describe, expect, it } from 'vitest';
import { compilePolicyPattern, matchesEveryExtension, pathShape } from '../../../src/policy/index.js';

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
