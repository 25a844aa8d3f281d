import { describe, expect, it } from 'vitest';
import { circuitView } from '../../../src/state/circuits.js';

describe('circuitView', () => {
  it('an open breaker says when it reopens, until that moment', () => {
    expect(circuitView('Edit', 'open', 3, 5_000, 4_999)).toEqual({ scope: 'Edit', state: 'open', failures: 3, reopens_at: 5_000 });
  });

  it('an open breaker past its recovery time is half open, with no reopening time', () => {
    expect(circuitView('Edit', 'open', 3, 5_000, 5_000)).toEqual({ scope: 'Edit', state: 'half_open', failures: 3, reopens_at: null });
  });

  it('a closed or half-open breaker is shown as stored', () => {
    expect(circuitView('Edit', 'closed', 2, 0, 9)).toEqual({ scope: 'Edit', state: 'closed', failures: 2, reopens_at: null });
    expect(circuitView('Edit', 'half_open', 3, 0, 9)).toEqual({ scope: 'Edit', state: 'half_open', failures: 3, reopens_at: null });
  });
});
