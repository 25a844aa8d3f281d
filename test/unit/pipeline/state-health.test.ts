import { describe, expect, it } from 'vitest';
import type { Outage } from '../../../src/pipeline/outage.js';
import { stateUnavailable, withState } from '../../../src/pipeline/state-health.js';
import { StateUnavailableError } from '../../../src/state/state-store.js';

function health() {
  const told: string[] = [];
  const outage = { ok: () => told.push('ok'), failed: () => told.push('failed') } as unknown as Outage;
  return { deps: { health: outage }, told };
}

describe('withState: every request to the state store is told to its health', () => {
  it('an answer is the answer, and tells the store is up', async () => {
    const { deps, told } = health();
    expect(
      await withState(
        deps,
        undefined,
        async () => 42,
        () => 0,
      ),
    ).toBe(42);
    expect(told).toEqual(['ok']);
  });

  it('StateUnavailableError tells the store is down and the fallback answers', async () => {
    const { deps, told } = health();
    const down = () => Promise.reject(new StateUnavailableError('connection refused'));
    expect(await withState(deps, undefined, down, () => 'fallback')).toBe('fallback');
    expect(told).toEqual(['failed']);
  });

  it('any other error is thrown on, and says nothing of the store', async () => {
    const { deps, told } = health();
    await expect(
      withState(
        deps,
        undefined,
        () => Promise.reject(new Error('bug')),
        () => 0,
      ),
    ).rejects.toThrow('bug');
    expect(told).toEqual([]);
  });

  it('a call the store is needed for answers STATE_UNAVAILABLE, retryable shortly', () => {
    expect(stateUnavailable('The store is down.').toCallError()).toMatchObject({
      code: 'STATE_UNAVAILABLE',
      message: 'The store is down.',
      retryable: true,
      retry_after_ms: 1_000,
    });
  });
});
