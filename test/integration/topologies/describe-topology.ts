import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { configFrom, loadConfig } from '../../../src/config/load.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { queueConnectionOptions } from '../../../src/queue/index.js';
import { queueConnection } from '../../../src/queue/connection.js';
import { createStateStore } from '../../../src/state/create.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createRedisStateStore, redisTopology, type RedisTopology } from '../../../src/state/redis/index.js';
import { asyncGateway, type AsyncGateway } from '../../helpers/async.js';
import { topologiesMissing } from '../../helpers/redis-topologies.js';
import { waitFor } from '../../helpers/redis.js';
import { describeStateStore } from '../../suites/state-store.suite.js';
import { failoverUnderLoad } from './under-load.js';

export interface TopologyUnderTest<T> {
  start(): Promise<T & { stop(): Promise<void> }>;
  /** The `state` section that names it, as a config file would. */
  redis(topology: T): Record<string, unknown>;
  /** The environment variables that name it, as a container would set them. */
  env(topology: T): NodeJS.ProcessEnv;
  /** The key prefix of the gateway's state and queue; default a new one. */
  prefix?(topology: T): Promise<string>;
  /**
   * Kill the primary that holds the keys the load under `prefix` needs (under-load.ts); resolves once it is dead, with a promise of when
   * Redis itself has failed over.
   */
  killPrimary(topology: T, prefix: string): Promise<{ failedOver: Promise<number> }>;
}

const STATE = configFrom().state;
const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

/**
 * Failover and resend on one real topology, started for this file: the
 * shared store suite, BullMQ batches, then the primary killed under load.
 * The failover comes last: it leaves the topology one node short.
 */
export function describeTopology<T>(name: string, spec: TopologyUnderTest<T>): void {
  describe(`${name}: the state store and the async queue`, () => {
    let topology: T & { stop(): Promise<void> };
    let target: RedisTopology;
    let gateway: AsyncGateway | undefined;
    let finishedBefore = '';
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

    it('is what start-up builds from the environment variables: the state store and the queue connection', async () => {
      const config = loadConfig(spec.env(topology), undefined);
      const logs: string[] = [];
      const store = createStateStore(
        config,
        pino({}, { write: (line: string) => void logs.push(line) }),
        createMetrics({ processMetrics: false }),
      );
      const queue = queueConnection(queueConnectionOptions(config)!, true);
      try {
        const clock = new ManualClock();
        expect(
          (
            await store.admit(
              [
                {
                  tenant: 't',
                  sessionId: 's',
                  callId: 'env',
                  tool: 'Edit',
                  breaker: { scope: 'Edit', failureThreshold: 3, recoveryMs: 1000 },
                },
              ],
              clock.now(),
            )
          )[0],
        ).toMatchObject({ outcome: 'admitted' });
        await waitFor('the queue connection', () =>
          queue.ping().then(
            () => true,
            () => false,
          ),
        );
        expect(logs).toEqual([]);
      } finally {
        await store.close();
        queue.disconnect();
      }
    });

    it('runs async batches on BullMQ workers through it, a replayed call id included', async () => {
      gateway = await asyncGateway({ redis: spec.redis(topology), prefix: await spec.prefix?.(topology) });
      gateway.startWorkers();
      const batch = { session_id: 's', tool_calls: [call('w1', 'Write', { path: 'a.txt', content: 'x' }), call('l1', 'LS', {})] };
      finishedBefore = (await gateway.submit(batch)).body.execution_id as string;
      const first = await gateway.until(finishedBefore, ['completed']);
      expect(first.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success']);
      expect(await readFile(join(gateway.workspace, 'a.txt'), 'utf8')).toBe('x');
      const again = await gateway.until((await gateway.submit(batch)).body.execution_id, ['completed']);
      expect(again.results[0]).toMatchObject({ status: 'success', replayed: true });
    });

    it('survives its primary killed under load: STATE_UNAVAILABLE (retryable) in the switch, nothing run twice, resumed without a restart', async () => {
      // The gateway's prefix: the primary killed also holds its queue (on a Cluster, spec.prefix makes it so).
      const prefix = gateway!.prefix;
      const store = createRedisStateStore({
        topology: target,
        keyPrefix: prefix,
        connectTimeoutMs: STATE.connect_timeout_ms,
        commandTimeoutMs: STATE.command_timeout_ms,
      });
      try {
        await store.ping();
        const report = await failoverUnderLoad(store, () => spec.killPrimary(topology, prefix));
        console.warn(`${name} failover: ${JSON.stringify(report)}`);
        expect(report.resumeMs).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    }, 60_000);

    it('the same BullMQ workers take a batch submitted after the failover, and one finished before it is still served', async () => {
      const after = await gateway!.until(
        (await gateway!.submit({ tool_calls: [call('l1', 'LS', {})] })).body.execution_id,
        ['completed'],
        {},
        20_000,
      );
      expect(after.results[0].status).toBe('success');
      expect((await gateway!.read(finishedBefore)).body).toMatchObject({
        status: 'completed',
        results: [{ status: 'success' }, { status: 'success' }],
      });
    }, 30_000);
  });
}
