import { describe, expect, it } from 'vitest';
import { allow, ask, deny, worst } from '../../../../../src/tools/bash/classify/verdict.js';

describe('verdicts', () => {
  it('the more restrictive wins; on a tie the first, so the first reason found is kept', () => {
    expect(worst(allow('a'), ask('b'))).toEqual({ decision: 'ask', reason: 'b' });
    expect(worst(deny('c'), ask('d'))).toEqual({ decision: 'deny', reason: 'c' });
    expect(worst(ask('first'), ask('second')).reason).toBe('first');
  });
});
