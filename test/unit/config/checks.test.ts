import { describe, expect, it } from 'vitest';
import { isLoopback, patternProblems } from '../../../src/config/checks.js';

describe('isLoopback', () => {
  it('isLoopback takes addresses of the loopback interface only, not names that merely start like one', () => {
    expect(['127.0.0.1', '127.255.0.9', 'localhost', '::1'].filter(isLoopback)).toHaveLength(4);
    expect(['127.0.0.1.example.com', '1127.0.0.1', '0.0.0.0', '::', '[::1]', 'localhost.example.com'].filter(isLoopback)).toEqual([]);
  });
});

describe('patternProblems', () => {
  it('names each rule argument whose pattern is not a regular expression, even in a rule broken elsewhere', () => {
    const rules = [{ tool: 'Bash', when: { command: '^git (' } }, 'not a rule', { when: { path: '^src/', mode: '[' } }, { when: 7 }];
    const problems = patternProblems(rules);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^policy\.rules\.0\.when\.command: not a valid regular expression \("\^git \("\): /);
    expect(problems[1]).toMatch(/^policy\.rules\.2\.when\.mode: not a valid regular expression \("\["\): /);
  });

  it('has nothing to say of valid patterns', () => {
    expect(patternProblems([{ when: { path: '^src/.*\\.ts$' } }])).toEqual([]);
  });
});
