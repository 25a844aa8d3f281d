import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('redirections: to a file ASK, to /dev/null ALLOW, to /dev/tcp DENY', () => {
  it.each([
    ['echo hi > out', 'ask'],
    ['echo hi > /dev/null', 'allow'],
    ['echo hi > /dev/tcp/h/80', 'deny'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
