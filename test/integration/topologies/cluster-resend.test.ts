import { expect, it } from 'vitest';
import { ManualClock } from '../../../src/shared/clock.js';
import { createRedisStateStore, RedisKeys } from '../../../src/state/redis/index.js';
import { StateUnavailableError, type AdmitRequest, type SettleRequest } from '../../../src/state/state-store.js';
import { ClusterTopology } from '../../helpers/redis-cluster.js';
import { leaseCall as lease, topologyForFile } from '../../helpers/redis-topology-file.js';
import { waitFor } from '../../helpers/redis.js';

const cluster = topologyForFile(() => ClusterTopology.start());

/**
 * A fresh Cluster client opens a master's connection at its first command and
 * refuses the others for that master until it is open. A settle whose two
 * scripts (the tenant's slot, the shared breakers') are for one such master
 * must still write both (connection.ts opens the masters first). One store
 * per master, each its first call, so at least one master is still
 * unconnected for one of them (without that step, 3 runs out of 4 failed).
 */
it("runs a fresh store's first batch of two scripts for one master not connected yet", async () => {
  const masters = new Set(await cluster().ownersOf(Array.from({ length: 64 }, (_, i) => `{k-${i}}`)));
  expect(masters.size).toBe(3);
  const keys = (prefix: string) => [new RedisKeys(prefix).tenant('acme'), new RedisKeys(prefix).breaker('Deploy')];
  for (const master of masters) {
    const prefix = await cluster().prefixWhere('first', keys, (owners) => owners.every((owner) => owner === master));
    const clock = new ManualClock();
    const store = createRedisStateStore({ topology: { kind: 'cluster', nodes: cluster().nodes, tls: false }, keyPrefix: prefix, clock });
    try {
      const meta = { file_mtime_ms: 1, file_size_bytes: 2 };
      // A failure that opens the shared breaker (its slot) and a Read lock (the tenant's slot).
      const settle: SettleRequest = {
        tenant: 'acme',
        sessionId: 's1',
        callId: 'first',
        tool: 'Deploy',
        breaker: { scope: 'Deploy', outcome: 'failure', probe: false, failureThreshold: 1, recoveryMs: 300_000 },
        lock: { path: 'a.txt', meta, ttlMs: 60_000 },
      };
      await expect(store.settle([settle], clock.now()), `master ${master}`).resolves.toBeUndefined();
      expect((await store.circuits(['Deploy'], clock.now()))[0], `master ${master}`).toMatchObject({ state: 'open' });
      const edit: AdmitRequest = {
        ...lease('edit'),
        tool: 'Edit',
        breaker: { scope: 'Edit', failureThreshold: 3, recoveryMs: 1_000 },
        lockPath: 'a.txt',
      };
      expect((await store.admit([edit], clock.now()))[0], `master ${master}`).toMatchObject({ outcome: 'admitted', lock: meta });
    } finally {
      await store.close();
    }
  }
}, 60_000);

/**
 * On a Cluster too, a command in flight when its connection drops
 * is failed, never sent again. ioredis' Cluster by default resends it 100 ms
 * later to wherever the slot has gone; here that would run the admit on the
 * new master after all, once the caller could have been told it failed (and
 * for a command the dead master had run, a second time).
 *
 * An admit with a shared breaker is two scripts, one after the other
 * (batch.ts): the breaker check in the breakers' slot, then the replay lease
 * in the tenant's. The breakers' master is hung, with the tenant's slot on
 * another, so the breaker check is the script in flight: failed, the admit
 * fails and its lease is never taken; resent, the admit would go on and
 * answer. (Hanging the tenant's master instead would leave the breaker check
 * racing the cluster's own detection, and its CLUSTERDOWN.)
 */
it('fails a script whose master dies under it, rather than resending it to the replica that took over', async () => {
  const keys = (prefix: string) => [new RedisKeys(prefix).breaker('Deploy'), new RedisKeys(prefix).tenant('acme')];
  const prefix = await cluster().prefixWhere('resend', keys, ([breakers, tenant]) => breakers !== tenant);
  const [master] = await cluster().ownersOf(keys(prefix));
  const clock = new ManualClock();
  const store = createRedisStateStore({
    topology: { kind: 'cluster', nodes: cluster().nodes, tls: false },
    keyPrefix: prefix,
    clock,
    commandTimeoutMs: 10_000,
  });
  try {
    await store.ping();
    expect((await store.admit([lease('warm-up')], clock.now()))[0]?.outcome).toBe('admitted');
    const replica = await cluster().replicaOf(master!);
    // The breaker check is written to a master that answers nothing, so it is still in flight when the master dies.
    await cluster().hang(master!);
    const inFlight = store.admit([lease('sent-once')], clock.now());
    const settled = inFlight.then(
      () => 'answered',
      () => 'failed',
    );
    await cluster().takeOver(replica);
    await cluster().kill(master!);
    await expect(inFlight).rejects.toBeInstanceOf(StateUnavailableError);
    expect(await settled).toBe('failed');
    await waitFor(
      'an admit to answer on the new master',
      () =>
        store.admit([lease('probe')], clock.now()).then(
          () => true,
          () => false,
        ),
      20_000,
    );
    // Nothing of it ran anywhere: the call is free to run (a lease taken after a resend would answer it in flight).
    expect((await store.admit([lease('sent-once')], clock.now()))[0]?.outcome).toBe('admitted');
  } finally {
    await store.close();
  }
}, 60_000);
