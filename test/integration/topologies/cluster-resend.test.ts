import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../../src/shared/clock.js';
import { createRedisStateStore, RedisKeys } from '../../../src/state/redis/index.js';
import { StateUnavailableError, type AdmitRequest } from '../../../src/state/state-store.js';
import { ClusterTopology, topologiesMissing } from '../../helpers/redis-topologies.js';
import { waitFor } from '../../helpers/redis.js';

let cluster: ClusterTopology | undefined;
beforeAll(async () => {
  const missing = topologiesMissing();
  if (missing) throw new Error(missing);
  cluster = await ClusterTopology.start();
}, 60_000);
afterAll(() => cluster?.stop());

const lease = (callId: string): AdmitRequest => ({
  tenant: 'acme',
  sessionId: 's1',
  callId,
  tool: 'Deploy',
  breaker: { scope: 'Deploy', failureThreshold: 3, recoveryMs: 300_000 },
  replay: { fingerprint: 'f', leaseMs: 600_000 },
});

/**
 * Issue 17: on a Cluster too, a command in flight when its connection drops
 * is failed, never sent again. ioredis' Cluster by default resends it 100 ms
 * later to wherever the slot has gone; here that would run the admit on the
 * new master after all, once the caller could have been told it failed (and
 * for a command the dead master had run, a second time).
 *
 * An admit with a shared breaker is two scripts (batch.ts): the breaker check
 * in the breakers' slot, then the replay lease in the tenant's. The prefix is
 * picked so the two are on different masters, and the tenant's is hung: the
 * breaker check answers, and the lease script is the one in flight.
 */
it('fails a script whose master dies under it, rather than resending it to the replica that took over', async () => {
  const keys = (prefix: string) => [new RedisKeys(prefix).tenant('acme'), new RedisKeys(prefix).breaker('Deploy')];
  const prefix = await cluster!.prefixWhere('resend', keys, ([tenant, breakers]) => tenant !== breakers);
  const [master, breakers] = await cluster!.ownersOf(keys(prefix));
  const clock = new ManualClock();
  const store = createRedisStateStore({ topology: { kind: 'cluster', nodes: cluster!.nodes, tls: false }, keyPrefix: prefix, clock, commandTimeoutMs: 10_000 });
  try {
    await store.ping();
    // Both masters' connections open and the scripts loaded, so the admit below goes out as it would on a busy gateway.
    expect((await store.admit([lease('warm-up')], clock.now()))[0]?.outcome).toBe('admitted');
    const replica = await cluster!.replicaOf(master!);
    // The lease script is written to a master that answers nothing, so it is still in flight when the master dies.
    await cluster!.hang(master!);
    const checked = await cluster!.scriptsRun(breakers!);
    const inFlight = store.admit([lease('sent-once')], clock.now());
    const settled = inFlight.then(() => 'answered', () => 'failed');
    await waitFor('the breaker check to run', async () => (await cluster!.scriptsRun(breakers!)) > checked);
    // Its answer back at the store, and so the lease script sent after it, to the hung master.
    await sleep(200);
    await cluster!.takeOver(replica);
    await cluster!.kill(master!);
    await expect(inFlight).rejects.toBeInstanceOf(StateUnavailableError);
    expect(await settled).toBe('failed');
    await waitFor('an admit to answer on the new master', () => store.admit([lease('probe')], clock.now()).then(() => true, () => false), 20_000);
    // Nothing of it ran anywhere: the call is free to run (a lease taken by a resend would answer it in flight).
    expect((await store.admit([lease('sent-once')], clock.now()))[0]?.outcome).toBe('admitted');
  } finally {
    await store.close();
  }
}, 60_000);
