import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('a variable set before a command: ASK, DENY when it changes which program runs', () => {
  it.each([
    ['PATH=/tmp ls', 'deny'],
    ['LC_ALL=C grep x f', 'ask'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
