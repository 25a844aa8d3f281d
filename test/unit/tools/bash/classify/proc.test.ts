import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('/proc and ps: the environment of a process is DENY, the rest of what ps shows ALLOW', () => {
  it.each([
    ['cat /proc/1/environ', 'deny'],
    ['cat /proc/cpuinfo', 'allow'],
    ['ps e', 'deny'],
    ['ps aux', 'allow'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
