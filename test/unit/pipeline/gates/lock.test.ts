import { describe, expect, it } from 'vitest';
import { injectLock, lockPathToFetch, lockToStore } from '../../../../src/pipeline/gates/lock.js';
import { plannedCall } from '../../../helpers/gates.js';

const write = (args: Record<string, unknown>) => plannedCall({ name: 'Write', lock: { role: 'write', pathArg: 'path' } }, args);
const META = { file_mtime_ms: 1000, file_size_bytes: 42 };

describe("lock injection gate: a write carries the session's last lock of its path", () => {
  it('a write without expected_mtime_ms asks for the session’s last lock of its normalized path (null counts as absent)', () => {
    expect(lockPathToFetch(write({ path: './a//b/../c.txt' }))).toBe('a/c.txt');
    expect(lockPathToFetch(write({ path: 'c.txt', expected_mtime_ms: null }))).toBe('c.txt');
    expect(lockPathToFetch(write({ path: 'c.txt', expected_mtime_ms: 5 }))).toBeUndefined();
    expect(lockPathToFetch(plannedCall({ name: 'Read', lock: { role: 'read', pathArg: 'path' } }, { path: 'c.txt' }))).toBeUndefined();
  });

  it('the call runs with the lock the session saw; a size the caller gave is kept; no lock changes nothing', () => {
    const call = write({ path: 'c.txt' });
    injectLock(call, META);
    expect(call.args).toEqual({ path: 'c.txt', expected_mtime_ms: 1000, expected_size_bytes: 42 });
    const sized = write({ path: 'c.txt', expected_size_bytes: 7 });
    injectLock(sized, META);
    expect(sized.args).toEqual({ path: 'c.txt', expected_mtime_ms: 1000, expected_size_bytes: 7 });
    const none = write({ path: 'c.txt' });
    injectLock(none, null);
    expect(none.args).toEqual({ path: 'c.txt' });
  });

  it('the lock is set on the arguments object the policy decision resolved, not on a copy (the tool keeps its resolution for that object)', () => {
    const call = write({ path: 'c.txt', expected_size_bytes: null });
    const decided = call.args;
    injectLock(call, META);
    expect(call.args).toBe(decided);
    expect(decided).toEqual({ path: 'c.txt', expected_mtime_ms: 1000, expected_size_bytes: 42 });
  });

  it('a successful call that reports mtime and size leaves them as the session’s lock for its path', () => {
    expect(lockToStore(write({ path: './c.txt' }), { text: '', data: META })).toEqual({ path: 'c.txt', meta: META });
    expect(lockToStore(write({ path: 'c.txt' }), { text: '', data: { file_mtime_ms: 1 } })).toBeUndefined();
  });
});
