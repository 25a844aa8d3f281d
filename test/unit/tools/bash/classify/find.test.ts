import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('find: ALLOW without -delete, -exec or -fprint', () => {
  it.each([
    ['find . -name x', 'allow'],
    ['find . -delete', 'deny'],
    ['find . -exec rm {} +', 'deny'],
    ['find . -fprint out', 'ask'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
