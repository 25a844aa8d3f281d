import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createRedisStateStore, redisTopology, type RedisTopology } from '../../../src/state/redis/index.js';
import { asyncGateway, type AsyncGateway } from '../../helpers/async.js';
import { topologiesMissing } from '../../helpers/redis-topologies.js';
import { describeStateStore } from '../../suites/state-store.suite.js';
import { failoverUnderLoad } from './under-load.js';

export interface TopologyUnderTest<T> {
  start(): Promise<T & { stop(): Promise<void> }>;
  /** The `state` section that names it, as a config file would. */
  redis(topology: T): Record<string, unknown>;
  /** Kill the primary that holds `prefix`'s keys; resolves once it is dead, with a promise of when Redis itself has failed over. */
  killPrimary(topology: T, prefix: string): Promise<{ failedOver: Promise<number> }>;
}

const STATE = configFrom().state;
const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

/**
 * Issue 17 items 2 and 4 on one real topology, started for this file: the
 * shared store suite, BullMQ batches, then the primary killed under load.
 * The failover comes last: it leaves the topology one node short.
 */
export function describeTopology<T>(name: string, spec: TopologyUnderTest<T>): void {
  describe(`${name}: the state store and the async queue`, () => {
    let topology: T & { stop(): Promise<void> };
    let target: RedisTopology;
    let gateway: AsyncGateway | undefined;
    beforeAll(async () => {
      const missing = topologiesMissing();
      if (missing) throw new Error(missing);
      topology = await spec.start();
      target = redisTopology(configFrom({ state: spec.redis(topology) }).state)!;
    }, 60_000);
    afterAll(async () => {
      await gateway?.close();
      await topology?.stop();
    });

    describeStateStore(name, async () => {
      const clock = new ManualClock();
      const store = createRedisStateStore({ topology: target, keyPrefix: `test-${randomUUID()}`, clock });
      return { store, clock, cleanup: () => store.close() };
    });

    it('runs async batches on BullMQ workers through it, a replayed call id included', async () => {
      gateway = await asyncGateway({ redis: spec.redis(topology) });
      gateway.startWorkers();
      const batch = { session_id: 's', tool_calls: [call('w1', 'Write', { path: 'a.txt', content: 'x' }), call('l1', 'LS', {})] };
      const first = await gateway.until((await gateway.submit(batch)).body.execution_id, ['completed']);
      expect(first.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success']);
      expect(await readFile(join(gateway.workspace, 'a.txt'), 'utf8')).toBe('x');
      const again = await gateway.until((await gateway.submit(batch)).body.execution_id, ['completed']);
      expect(again.results[0]).toMatchObject({ status: 'success', replayed: true });
    });

    it('survives its primary killed under load: STATE_UNAVAILABLE (retryable) in the switch, nothing run twice, resumed without a restart', async () => {
      // The gateway's prefix: on a Cluster the master killed is the one that also holds its queue.
      const prefix = gateway!.prefix;
      const store = createRedisStateStore({ topology: target, keyPrefix: prefix, connectTimeoutMs: STATE.connect_timeout_ms, commandTimeoutMs: STATE.command_timeout_ms });
      try {
        await store.ping();
        const report = await failoverUnderLoad(store, () => spec.killPrimary(topology, prefix));
        console.warn(`${name} failover: ${JSON.stringify(report)}`);
        expect(report.resumeMs).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    }, 60_000);

    it('the same BullMQ workers take a batch submitted after the failover', async () => {
      const after = await gateway!.until((await gateway!.submit({ tool_calls: [call('l1', 'LS', {})] })).body.execution_id, ['completed'], {}, 20_000);
      expect(after.results[0].status).toBe('success');
    }, 30_000);
  });
}
