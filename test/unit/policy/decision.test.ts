import { describe, expect, it } from 'vitest';
import { stricter, strictest, type Decision } from '../../../src/policy/index.js';

describe('the ranking of decisions', () => {
  const order: Decision[] = ['allow', 'ask', 'deny'];

  it('ranks deny over ask over allow, whichever comes first', () => {
    for (const a of order) {
      for (const b of order) expect(stricter(a, b)).toBe(order[Math.max(order.indexOf(a), order.indexOf(b))]);
    }
  });

  it('keeps the first of two equally strict verdicts, so the first reason found is the one told', () => {
    const first: { decision: Decision; reason: string } = { decision: 'ask', reason: 'first' };
    expect(strictest(first, { decision: 'ask', reason: 'second' })).toBe(first);
    expect(strictest(first, { decision: 'deny', reason: 'later deny' }).reason).toBe('later deny');
    expect(strictest({ decision: 'deny', reason: 'deny' }, first).reason).toBe('deny');
  });
});
