import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('awk: programs that print are ALLOW; running a program DENY; writing a file or reading a program from one ASK', () => {
  it.each([
    ["awk '{print $1}' f", 'allow'],
    ['awk \'BEGIN{system("ls")}\'', 'deny'],
    ['awk \'{print > "out"}\' f', 'ask'],
    ['awk -f prog.awk f', 'ask'],
    ['awk -l lib', 'deny'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
