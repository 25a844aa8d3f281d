import { describe, expect, it } from 'vitest';
import { callKey, fileLockKey, lockKey, requestKey } from '../../../../src/state/memory/keys.js';

describe('memory store keys', () => {
  it('keep parts holding separators apart', () => {
    expect(lockKey('a:b', 'c', 'd')).not.toBe(lockKey('a', 'b:c', 'd'));
    expect(lockKey('a', 's', 'x","y')).not.toBe(lockKey('a', 's","x', 'y'));
  });

  it('never give a call, a request and a file lock the same key', () => {
    const keys = [callKey({ tenant: 't', sessionId: 's', callId: 'c' }), requestKey('t', 's'), fileLockKey('t', 's')];
    expect(new Set(keys).size).toBe(3);
  });
});
