import { describe, expect, it } from 'vitest';
import { counted } from '../../../src/shared/count.js';

describe('counted', () => {
  it('says the singular for exactly one and the plural otherwise', () => {
    expect(counted(1, 'line')).toBe('1 line');
    expect(counted(0, 'line')).toBe('0 lines');
    expect(counted(2, 'line')).toBe('2 lines');
  });

  it('takes an irregular plural', () => {
    expect(counted(1, 'entry', 'entries')).toBe('1 entry');
    expect(counted(3, 'entry', 'entries')).toBe('3 entries');
  });
});
