import { describe, expect, it } from 'vitest';
import { hides } from '../../../src/catalog/hidden.js';

describe('a tool whose breaker is open is hidden', () => {
  it('open hides it; closed and half open do not (a half-open breaker lets its probe through)', () => {
    const circuit = (state: 'closed' | 'open' | 'half_open') => ({ scope: 'Read', state, failures: 0, reopens_at: null });
    expect(hides(circuit('open'))).toBe(true);
    expect(hides(circuit('closed'))).toBe(false);
    expect(hides(circuit('half_open'))).toBe(false);
  });
});
