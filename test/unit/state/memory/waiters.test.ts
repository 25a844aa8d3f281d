import { describe, expect, it } from 'vitest';
import { Waiters } from '../../../../src/state/memory/waiters.js';

describe('Waiters', () => {
  it('wakes every waiter of a key, each with its own copy of the result', async () => {
    const waiters = new Waiters();
    const [a, b] = [waiters.wait('k', 5_000), waiters.wait('k', 5_000)];
    const result = { list: [1] };
    waiters.wake('k', result);
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra).toEqual(result);
    expect(ra).not.toBe(result);
    expect(ra).not.toBe(rb);
  });

  it('ends a wait with null at its timeout, and every wait on wakeAll', async () => {
    const waiters = new Waiters();
    expect(await waiters.wait('k', 10)).toBeNull();
    const waiting = waiters.wait('other', 5_000);
    waiters.wakeAll();
    expect(await waiting).toBeNull();
  });
});
