import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('arithmetic on variables is ASK; quotes are read as bash reads them', () => {
  it.each([
    ['echo $((x+1))', 'ask'],
    ['echo \'a\'"b"', 'allow'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
