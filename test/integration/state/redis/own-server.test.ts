import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../../src/shared/clock.js';
import { createRedisStateStore } from '../../../../src/state/redis/index.js';
import { StateUnavailableError, type StateStore } from '../../../../src/state/state-store.js';
import { OPEN } from '../../../suites/state-store-approvals.js';
import { freePort } from '../../../helpers/redis-global-setup.js';
import { accepts, redisServerBinary, waitFor } from '../../../helpers/redis.js';
import { BREAKER, call, newPrefix } from './store-requests.js';

/** A redis-server of the test's own, to count its commands or to stop and start it. */
class OwnRedis {
  private child: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      redisServerBinary(),
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()],
      {
        stdio: 'ignore',
      },
    );
    for (let attempt = 0; !(await accepts(this.port)); attempt++) {
      if (attempt > 200) throw new Error(`redis-server did not listen on ${this.port}`);
      await sleep(25);
    }
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null;
  }

  /** SIGSTOP: the server keeps its sockets open but answers nothing. */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

describe('RedisStateStore on a server of its own', () => {
  let server: OwnRedis;
  beforeAll(async () => {
    server = new OwnRedis(await freePort());
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('costs one round trip per admit and per settle, whatever the batch size', async () => {
    const clock = new ManualClock();
    const client = new Redis(server.url, { connectionName: 'store-under-test' });
    const store = createRedisStateStore({ client, keyPrefix: newPrefix(), clock });
    // Threshold 0: the slow log records every command a client sends, and not the ones scripts run.
    const admin = new Redis(server.url);
    await admin.config('SET', 'slowlog-log-slower-than', '0');
    const commandsDuring = async (work: () => Promise<unknown>) => {
      const sent = vi.spyOn(client, 'sendCommand');
      await admin.slowlog('RESET');
      await work();
      const log = (await admin.slowlog('GET', 1000)) as [number, number, number, string[], string, string][];
      const clientSide = sent.mock.calls.length;
      sent.mockRestore();
      const serverSide = log.filter((entry) => entry[5] === 'store-under-test').map((entry) => entry[3][0]?.toLowerCase());
      return { serverSide, clientSide };
    };
    try {
      await store.ping();
      for (const n of [1, 10, 64]) {
        const batch = Array.from({ length: n }, (_, i) =>
          call({
            callId: `c${n}-${i}`,
            replay: { fingerprint: 'f', leaseMs: 60_000 },
            approval: i % 2 ? { argsHash: `h${i}`, ttlMs: 60_000, open: OPEN } : undefined,
            lockPath: `p${i}`,
            breaker: { ...BREAKER, scope: `tool-${i % 5}` },
            rateLimit: { subject: 'key', perMinute: 1000 },
          }),
        );
        expect(await commandsDuring(() => store.admit(batch, clock.now()))).toEqual({
          serverSide: [expect.stringMatching(/^eval(sha)?$/)],
          clientSide: 1,
        });
        const settled = batch.map((r, i) => ({
          ...r,
          breaker: { ...r.breaker, outcome: 'failure' as const, probe: false },
          lock: { path: `p${i}`, meta: { file_mtime_ms: 1, file_size_bytes: 2 }, ttlMs: 60_000 },
          replay: { result: { i }, ttlMs: 60_000 },
        }));
        expect(await commandsDuring(() => store.settle(settled, clock.now()))).toEqual({
          serverSide: [expect.stringMatching(/^eval(sha)?$/)],
          clientSide: 1,
        });
      }
    } finally {
      await store.close();
      client.disconnect();
      admin.disconnect();
    }
  });

  describe('when the server goes away', () => {
    const timeouts = { connectTimeoutMs: 200, commandTimeoutMs: 200 };
    let store: StateStore | undefined;
    afterEach(async () => {
      server.signal('SIGCONT');
      await store?.close();
      store = undefined;
      if (!server.running) await server.start();
    });

    const everyMethod = (s: StateStore, now: number): Record<string, () => Promise<unknown>> => {
      const ref = { tenant: 'acme', sessionId: 's1', callId: 'c1' };
      return {
        admit: () => s.admit([call()], now),
        settle: () => s.settle([{ ...ref, tool: 'Edit', breaker: { ...BREAKER, outcome: 'success', probe: false } }], now),
        awaitResult: () => s.awaitResult(ref, 5000),
        claimRequest: () => s.claimRequest('acme', 'k', 'f', 1000),
        completeRequest: () => s.completeRequest('acme', 'k', {}, 1000),
        releaseRequest: () => s.releaseRequest('acme', 'k'),
        awaitRequest: () => s.awaitRequest('acme', 'k', 5000),
        circuits: () => s.circuits(['Edit'], now),
        resetCircuit: () => s.resetCircuit('Edit'),
        listApprovals: () => s.listApprovals(null, { status: 'pending', limit: 10 }, now),
        getApproval: () => s.getApproval('apr_x', null, now),
        decideApproval: () => s.decideApproval('apr_x', null, { status: 'approved', by: 'k', history: { ttlMs: 1000, count: 1 } }, now),
        countPendingApprovals: () => s.countPendingApprovals(now),
        hit: () => s.hit('ip', 5, 1000, now),
        ping: () => s.ping(),
      };
    };

    /** Each method on its own rejects with StateUnavailableError, and soon. */
    const expectUnavailable = async (s: StateStore, now: number) => {
      for (const [name, method] of Object.entries(everyMethod(s, now))) {
        const started = performance.now();
        const error = await method().then(
          () => new Error(`${name} resolved`),
          (e: unknown) => e,
        );
        const elapsed = performance.now() - started;
        expect(error, name).toBeInstanceOf(StateUnavailableError);
        expect(elapsed, name).toBeLessThan(500);
      }
    };

    it('throws StateUnavailableError from every method when nothing listens', async () => {
      store = createRedisStateStore({ url: `redis://127.0.0.1:${await freePort()}`, keyPrefix: newPrefix(), ...timeouts });
      await expectUnavailable(store, Date.now());
    });

    it('throws StateUnavailableError when the server hangs, within the command timeout', async () => {
      store = createRedisStateStore({ url: server.url, keyPrefix: newPrefix(), ...timeouts });
      await store.ping();
      server.signal('SIGSTOP');
      await expectUnavailable(store, Date.now());
    });

    it('never sends again a command it reported as failed, not even once reconnected', async () => {
      const clock = new ManualClock();
      store = createRedisStateStore({ url: server.url, keyPrefix: newPrefix(), clock, ...timeouts });
      const lease = () => store!.admit([call({ callId: 'sent-once', replay: { fingerprint: 'f', leaseMs: 60_000 } })], clock.now());
      await store.ping();
      // The admit is written, then the server hangs: it times out unanswered and is reported as failed.
      server.signal('SIGSTOP');
      await expect(lease()).rejects.toBeInstanceOf(StateUnavailableError);
      // The server dies with the command unexecuted and comes back empty; a resent admit would hold the lease now.
      await server.stop();
      await server.start();
      await waitFor('the store to reconnect', () =>
        store!.ping().then(
          () => true,
          () => false,
        ),
      );
      expect((await lease())[0]?.outcome).toBe('admitted');
    });

    it('fails fast while the server is down and recovers by itself on the same port', async () => {
      const clock = new ManualClock();
      store = createRedisStateStore({ url: server.url, keyPrefix: newPrefix(), clock, ...timeouts });
      expect((await store.admit([call({ replay: { fingerprint: 'f', leaseMs: 60_000 } })], clock.now()))[0]?.outcome).toBe('admitted');
      await server.stop();
      await expectUnavailable(store, clock.now());
      await server.start();
      const deadline = Date.now() + 5000;
      for (;;) {
        try {
          await store.ping();
          break;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await sleep(50);
        }
      }
      // A fresh server has neither data nor scripts: the store loads them again on its own.
      expect((await store.admit([call({ replay: { fingerprint: 'f', leaseMs: 60_000 } })], clock.now()))[0]?.outcome).toBe('admitted');
      expect(await store.claimRequest('acme', 'k', 'f', 1000)).toEqual({ outcome: 'claimed' });
    });
  });
});
