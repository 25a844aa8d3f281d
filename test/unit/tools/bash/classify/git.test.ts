import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('git: reading subcommands ALLOW, history rewriting DENY, the rest ASK', () => {
  it.each([
    ['git status', 'allow'],
    ['git push --force', 'deny'],
    ['git commit -m x', 'ask'],
    ['git reset --hard', 'deny'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
