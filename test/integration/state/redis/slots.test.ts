import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/shared/clock.js';
import { scopeOf } from '../../../../src/state/breaker-scope.js';
import { createRedisStateStore, type RedisStateStore } from '../../../../src/state/redis/index.js';
import type { AdmitRequest, SettleRequest } from '../../../../src/state/state-store.js';
import { describeStateStore } from '../../../suites/state-store.suite.js';
import { OPEN } from '../../../suites/state-store-approvals.js';

const DECISION = { status: 'approved' as const, by: 'ops', history: { ttlMs: 60_000, count: 10 } };
import { clusterSlot, crc16 } from '../../../helpers/cluster-slot.js';
import { OwnRedis, redisServerBinary, waitFor } from '../../../helpers/redis.js';

/** Fixed, so the slots are known: each test starts from an empty server instead of a prefix of its own. */
const PREFIX = 'toolgate';
const TENANTS = ['acme', 'globex', 'other'];
const BREAKER = { failureThreshold: 3, recoveryMs: 300_000 };
/** The grants' commands (state/redis/grants.ts), each of one key. */
const GRANT_COMMANDS = ['hget', 'hdel', 'set', 'getdel', 'exists'];
/** Commands that name one key, at args[1]; the store sends no multi-key command but its scripts. */
const SINGLE_KEY = new Set(['hmget', 'hgetall', 'get', 'del', 'zrangebyscore', 'zrevrangebyscore', 'zcount', ...GRANT_COMMANDS]);
/** MULTI and EXEC frame the grants' read-and-forget of one key (state/redis/grants.ts). */
const KEYLESS = new Set(['ping', 'info', 'quit', 'echo', 'client', 'select', 'flushall', 'script', 'multi', 'exec']);

/** One command as the server ran it, from a client (MONITOR leaves out nothing a client sent). */
type Sent = string[];

const scriptKeys = (args: Sent): string[] => args.slice(3, 3 + Number(args[2]));
const isScript = (args: Sent) => args[0] === 'evalsha' || args[0] === 'eval';

describe('RedisStateStore sharded (one script per slot), on one server', () => {
  let server: OwnRedis;
  let admin: Redis;
  let watcher: Redis;
  let monitor: Redis;
  const sent: Sent[] = [];
  const stores: RedisStateStore[] = [];
  const open = (clock: ManualClock, options: { client?: Redis } = {}) => {
    const store = options.client
      ? createRedisStateStore({ client: options.client, keyPrefix: PREFIX, clock, sharded: true })
      : createRedisStateStore({ url: server.url, keyPrefix: PREFIX, clock, sharded: true });
    stores.push(store);
    return store;
  };
  /** Everything sent so far has reached the monitor once a marker sent after it has. */
  const drained = async (): Promise<Sent[]> => {
    const marker = `drained-${sent.length}-${Date.now()}`;
    await admin.echo(marker);
    await waitFor('the monitor to catch up', async () => sent.some((args) => args[0] === 'echo' && args[1] === marker));
    return sent.filter((args) => args[0] !== 'echo');
  };

  beforeAll(async () => {
    server = await OwnRedis.start(redisServerBinary());
    admin = new Redis(server.url);
    watcher = new Redis(server.url);
    // No other client may send while MONITOR starts: a line that comes in the same read as MONITOR's OK reaches ioredis before it
    // knows the connection is monitoring (it learns so a microtask later), and fails its command queue ("Command queue state error",
    // after another connection's ready-check INFO). Both connections are ready, and quiet, first.
    await Promise.all([admin.ping(), watcher.ping()]);
    monitor = await watcher.monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // Commands a script runs are reported too, from the server's Lua client; the script's own KEYS are what counts.
      if (source !== 'lua') sent.push([String(args[0]).toLowerCase(), ...args.slice(1)]);
    });
  });

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    monitor?.disconnect();
    watcher?.disconnect();
    admin?.disconnect();
    await server?.stop();
  });

  it('computes slots as the Cluster specification does', () => {
    // The specification's check value, and slots `CLUSTER KEYSLOT` answers.
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
    expect(clusterSlot('foo')).toBe(12182);
    expect(clusterSlot('{user1000}.following')).toBe(clusterSlot('{user1000}.followers'));
    expect(clusterSlot('foo{}{bar}')).toBe(crc16(Buffer.from('foo{}{bar}')) % 16384);
  });

  // The shared suite is the workload: admit and settle, approvals, locks, replay, limits, breakers, several tenants.
  describeStateStore('redis, sharded', async () => {
    const clock = new ManualClock();
    return { store: open(clock), clock, cleanup: async () => void (await admin.flushall()) };
  });

  describe('after the suite, and a workload of per-tenant breakers', () => {
    const call = (tenant: string, i: number, scope: string): AdmitRequest => ({
      tenant,
      sessionId: 's',
      callId: `c${i}`,
      tool: 'Edit',
      replay: { fingerprint: 'f', leaseMs: 60_000 },
      lockPath: `p${i}`,
      rateLimit: { subject: `${tenant}-key`, perMinute: 100 },
      approval: i === 2 ? { argsHash: 'h', ttlMs: 60_000, open: OPEN } : undefined,
      breaker: { scope, ...BREAKER },
    });
    const settled = (r: AdmitRequest, outcome: SettleRequest['breaker']['outcome']): SettleRequest => ({
      ...r,
      breaker: { ...r.breaker, outcome, probe: false },
      lock: { path: 'p', meta: { file_mtime_ms: 1, file_size_bytes: 1 }, ttlMs: 60_000 },
      replay: { result: { ok: true }, ttlMs: 60_000 },
    });

    it('runs per-tenant and shared breakers of several tenants', async () => {
      const clock = new ManualClock();
      const store = open(clock);
      for (const tenant of TENANTS) {
        for (const scope of [scopeOf('Edit', tenant), 'Edit']) {
          const batch = [0, 1, 2].map((i) => call(tenant, i, scope));
          await store.admit(batch, clock.now());
          await store.settle(
            batch.map((r) => settled(r, 'failure')),
            clock.now(),
          );
        }
        expect(await store.circuits([scopeOf('Edit', tenant)], clock.now())).toMatchObject([{ state: 'open', failures: 3 }]);
        await store.resetCircuit(scopeOf('Edit', tenant));
        await store.listApprovals(tenant, { status: 'pending', limit: 10 }, clock.now());
      }
      expect((await store.listApprovals(null, { status: 'pending', limit: 10 }, clock.now())).map((a) => a.tenant).sort()).toEqual(TENANTS);
    });

    it('kept every script’s keys in one slot, and every other command to one key', async () => {
      const commands = await drained();
      const scripts = commands.filter(isScript);
      expect(scripts.length).toBeGreaterThan(200);
      for (const args of scripts) {
        const keys = scriptKeys(args);
        expect(keys.length, args.join(' ')).toBeGreaterThan(0);
        expect(new Set(keys.map(clusterSlot)).size, keys.join(' ')).toBe(1);
      }
      for (const args of commands.filter((a) => !isScript(a))) {
        if (KEYLESS.has(args[0] as string)) continue;
        expect(SINGLE_KEY.has(args[0] as string), args.join(' ')).toBe(true);
        if (args[0] === 'del') expect(args, 'DEL of one key').toHaveLength(2);
      }
    });

    it('spread the tenants over slots apart from the shared breakers and the approvals index', async () => {
      const slotsOf = (tag: string) => {
        const slots = new Set<number>();
        for (const args of sent.filter(isScript))
          for (const key of scriptKeys(args)) if (key.startsWith(`{${tag}}`)) slots.add(clusterSlot(key));
        return [...slots];
      };
      const tenantSlots = TENANTS.map((tenant) => slotsOf(`${PREFIX}:tenant:${tenant}`));
      for (const slots of tenantSlots) expect(slots).toHaveLength(1);
      const all = [...tenantSlots.flat(), ...slotsOf(`${PREFIX}:breakers`), ...slotsOf(`${PREFIX}:approvals`)];
      expect(all).toHaveLength(TENANTS.length + 2);
      expect(new Set(all).size, 'every tenant, the breakers and the index in a slot of their own').toBe(all.length);
    });
  });

  describe('round trips and scripts per batch', () => {
    /** Socket writes of the store's own client, and the scripts the server ran for it. */
    const measure = async (client: Redis, work: () => Promise<unknown>) => {
      const before = (await drained()).length;
      let writes = 0;
      const socket = client.stream;
      const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
      socket.write = ((...args: unknown[]) => {
        writes += 1;
        return write(...args);
      }) as typeof socket.write;
      try {
        await work();
      } finally {
        socket.write = write as typeof socket.write;
      }
      const scripts = (await drained()).slice(before).filter(isScript);
      return { writes, scripts: scripts.length };
    };

    it('shared breakers: admit one round trip with nothing of the tenant’s, else two (breakers, then tenant); settle one of two scripts', async () => {
      const client = new Redis(server.url, { enableAutoPipelining: true });
      const clock = new ManualClock();
      const store = open(clock, { client });
      await store.ping();
      const reads = Array.from({ length: 10 }, (_, i) => ({
        tenant: 'acme',
        sessionId: 's',
        callId: `c${i}`,
        tool: 'Read',
        breaker: { scope: 'Read', ...BREAKER },
      }));
      const edits = reads.map((r) => ({ ...r, tool: 'Edit', lockPath: `p-${r.callId}`, replay: { fingerprint: 'f', leaseMs: 60_000 } }));
      const done = reads.map((r) => ({
        ...r,
        breaker: { ...r.breaker, outcome: 'success' as const, probe: false },
        lock: { path: `p-${r.callId}`, meta: { file_mtime_ms: 1, file_size_bytes: 1 }, ttlMs: 60_000 },
      }));
      // A fresh server knows no script: the first use of each costs a NOSCRIPT and an EVAL.
      await store.admit(edits, clock.now());
      await store.settle(done, clock.now());
      expect(await measure(client, () => store.admit(reads, clock.now()))).toEqual({ writes: 1, scripts: 1 });
      clock.advance(60_000);
      expect(await measure(client, () => store.admit(edits, clock.now()))).toEqual({ writes: 2, scripts: 2 });
      expect(await measure(client, () => store.settle(done, clock.now()))).toEqual({ writes: 1, scripts: 2 });
      client.disconnect();
    });

    it('per-tenant breakers: one script per phase, one round trip each, as on a single node', async () => {
      const client = new Redis(server.url, { enableAutoPipelining: true });
      const clock = new ManualClock();
      const store = open(clock, { client });
      await store.ping();
      const scope = scopeOf('Read', 'acme');
      const batch = Array.from({ length: 10 }, (_, i) => ({
        tenant: 'acme',
        sessionId: 's',
        callId: `c${i}`,
        tool: 'Read',
        breaker: { scope, ...BREAKER },
      }));
      const done = batch.map((r) => ({ ...r, breaker: { ...r.breaker, outcome: 'success' as const, probe: false } }));
      await store.admit(batch, clock.now());
      expect(await measure(client, () => store.admit(batch, clock.now()))).toEqual({ writes: 1, scripts: 1 });
      expect(await measure(client, () => store.settle(done, clock.now()))).toEqual({ writes: 1, scripts: 1 });
      client.disconnect();
    });
  });

  it('lets exactly one of 50 concurrent admits from two stores probe a half-open shared breaker, each with work in its tenant’s slot', async () => {
    await admin.flushall();
    const clock = new ManualClock();
    const [a, b] = [open(clock), open(clock)];
    const scope = { scope: 'Edit', ...BREAKER };
    const failure = {
      tenant: 'acme',
      sessionId: 's',
      callId: 'x',
      tool: 'Edit',
      breaker: { ...scope, outcome: 'failure' as const, probe: false },
    };
    await a.settle([failure, failure, failure], clock.now());
    clock.advance(BREAKER.recoveryMs);
    const answers = (
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? a : b).admit(
            [
              {
                tenant: TENANTS[i % 3] as string,
                sessionId: 's',
                callId: `c${i}`,
                tool: 'Edit',
                replay: { fingerprint: 'f', leaseMs: 60_000 },
                breaker: scope,
              },
            ],
            clock.now(),
          ),
        ),
      )
    ).flat();
    expect(answers.filter((x) => x.outcome === 'admitted')).toEqual([{ outcome: 'admitted', lock: null, probe: true }]);
    expect(answers.filter((x) => x.outcome === 'circuit_open')).toHaveLength(49);
  });

  it('writes a lost global index entry again the next time the call asks', async () => {
    await admin.flushall();
    const clock = new ManualClock();
    const store = open(clock);
    const ask: AdmitRequest = {
      tenant: 'acme',
      sessionId: 's',
      callId: 'c',
      tool: 'Edit',
      approval: { argsHash: 'lost', ttlMs: 60_000, open: OPEN },
      breaker: { scope: 'Edit', ...BREAKER },
    };
    const [first] = await store.admit([ask], clock.now());
    expect(first).toMatchObject({ outcome: 'approval_pending' });
    const id = (first as { approvalId: string }).approvalId;
    // As if the write to the index's slot had failed after the tenant's script opened the request.
    await admin.del(`{${PREFIX}:approvals}:approvals-all`, `{${PREFIX}:approvals}:approval-id:${id}`);
    expect(await store.listApprovals(null, { status: 'pending', limit: 10 }, clock.now())).toEqual([]);
    expect(await store.decideApproval(id, null, DECISION, clock.now())).toBeNull();
    clock.advance(1);
    expect(await store.admit([ask], clock.now())).toEqual([{ outcome: 'approval_pending', approvalId: id }]);
    expect((await store.listApprovals(null, { status: 'pending', limit: 10 }, clock.now())).map((a) => a.id)).toEqual([id]);
    expect(await store.decideApproval(id, null, DECISION, clock.now())).toMatchObject({
      outcome: 'decided',
      record: { id, status: 'approved' },
    });
    expect((await store.listApprovals(null, { status: 'decided', limit: 10 }, clock.now())).map((a) => a.id)).toEqual([id]);
    expect(await store.admit([ask], clock.now())).toEqual([
      { outcome: 'admitted', lock: null, probe: false, approval: { id, decidedBy: 'ops' } },
    ]);
  });
});
