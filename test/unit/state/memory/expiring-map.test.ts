import { describe, expect, it } from 'vitest';
import { ExpiringMap } from '../../../../src/state/memory/expiring-map.js';

describe('ExpiringMap', () => {
  it('drops an entry read at or past its expiresAt', () => {
    const map = new ExpiringMap<{ v: number; expiresAt: number }>();
    map.set('a', { v: 1, expiresAt: 10 });
    expect(map.get('a', 9)).toEqual({ v: 1, expiresAt: 10 });
    expect(map.get('a', 10)).toBeUndefined();
    expect(map.get('a', 0)).toBeUndefined();
  });

  it('sweeps only the entries that lapsed', () => {
    const map = new ExpiringMap<{ expiresAt: number }>();
    map.set('old', { expiresAt: 5 });
    map.set('new', { expiresAt: 50 });
    map.sweep(5);
    expect(map.get('old', 0)).toBeUndefined();
    expect(map.get('new', 0)).toEqual({ expiresAt: 50 });
  });
});
