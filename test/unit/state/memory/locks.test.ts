import { describe, expect, it } from 'vitest';
import { MemoryLocks } from '../../../../src/state/memory/locks.js';

describe('MemoryLocks', () => {
  it('hands out a copy, so a later set does not change what a caller holds', () => {
    const locks = new MemoryLocks();
    const meta = { file_mtime_ms: 1, file_size_bytes: 2 };
    locks.set('k', meta, 100);
    meta.file_size_bytes = 99;
    const held = locks.get('k', 0);
    expect(held).toEqual({ file_mtime_ms: 1, file_size_bytes: 2 });
    locks.set('k', { file_mtime_ms: 3, file_size_bytes: 4 }, 100);
    expect(held).toEqual({ file_mtime_ms: 1, file_size_bytes: 2 });
    expect(locks.get('k', 100)).toBeNull();
  });
});
