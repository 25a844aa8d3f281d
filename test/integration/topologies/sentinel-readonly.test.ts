import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { ManualClock } from '../../../src/shared/clock.js';
import { createRedisStateStore } from '../../../src/state/redis/index.js';
import { StateUnavailableError } from '../../../src/state/state-store.js';
import { SentinelTopology } from '../../helpers/redis-topologies.js';
import { leaseCall as lease, topologyForFile } from '../../helpers/redis-topology-file.js';
import { waitFor } from '../../helpers/redis.js';

const sentinel = topologyForFile(() => SentinelTopology.start());

/**
 * A primary demoted under a connected client answers its writes
 * READONLY, and nothing makes it drop the client. The store fails that
 * write (nothing of it ran), leaves the demoted node for the primary the
 * sentinels name, and does not send the write again there.
 */
it('leaves a demoted primary on READONLY for the one the sentinels name, without resending the refused write', async () => {
  const clock = new ManualClock();
  const store = createRedisStateStore({
    topology: { kind: 'sentinel', sentinels: sentinel().sentinels, name: sentinel().name, tls: false },
    keyPrefix: `readonly-${randomUUID()}`,
    clock,
  });
  try {
    expect((await store.admit([lease('warm-up')], clock.now()))[0]?.outcome).toBe('admitted');
    const next = await sentinel().switchByHand();
    expect(await sentinel().primaryPort()).toBe(next);
    const refused = await store.admit([lease('refused')], clock.now()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StateUnavailableError);
    expect(String((refused as Error).cause)).toMatch(/READONLY/);
    await waitFor(
      'the store to write on the new primary',
      () =>
        store.admit([lease('probe')], clock.now()).then(
          () => true,
          () => false,
        ),
      10_000,
    );
    expect((await store.admit([lease('refused')], clock.now()))[0]?.outcome).toBe('admitted');
  } finally {
    await store.close();
  }
}, 60_000);
