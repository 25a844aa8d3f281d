import { describe, expect, it } from 'vitest';
import { classOf } from './class-of.js';

describe('an option that writes is found inside a cluster too', () => {
  it.each([
    ['sort -o out f', 'ask'],
    ['sort -uo out f', 'ask'],
    ['sed -n 1p f', 'allow'],
    ['sed -i s/a/b/ f', 'ask'],
  ])('%s is %s', (command, decision) => expect(classOf(command)).toBe(decision));
});
