import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../../../../src/shared/clock.js';
import { createRedisStateStore } from '../../../../src/state/redis/index.js';
import type { StateStore } from '../../../../src/state/state-store.js';
import { OPEN } from '../../../suites/state-store-approvals.js';
import { BREAKER, call, newPrefix } from './store-requests.js';

const url = inject('redisUrl');

describe('RedisStateStore on the shared server', () => {
  const stores: StateStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  const open = (keyPrefix: string, clock: ManualClock) => {
    const store = createRedisStateStore({ url, keyPrefix, clock });
    stores.push(store);
    return store;
  };

  it('lets exactly one of 50 concurrent admits from two clients probe a half-open breaker', async () => {
    const clock = new ManualClock();
    const prefix = newPrefix();
    const [a, b] = [open(prefix, clock), open(prefix, clock)] as [StateStore, StateStore];
    const failure = {
      tenant: 'acme',
      sessionId: 's',
      callId: 'x',
      tool: 'Edit',
      breaker: { ...BREAKER, outcome: 'failure' as const, probe: false },
    };
    await a.settle([failure, failure, failure], clock.now());
    clock.advance(BREAKER.recoveryMs);
    const answers = (
      await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).admit([call({ callId: `c${i}` })], clock.now())))
    ).flat();
    expect(answers.filter((x) => x.outcome === 'admitted')).toEqual([{ outcome: 'admitted', lock: null, probe: true }]);
    expect(answers.filter((x) => x.outcome === 'circuit_open')).toHaveLength(49);
  });

  it('hands one lease and exactly perMinute tokens to concurrent callers', async () => {
    const clock = new ManualClock();
    const prefix = newPrefix();
    const [a, b] = [open(prefix, clock), open(prefix, clock)] as [StateStore, StateStore];
    const replays = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).admit([call({ replay: { fingerprint: 'f', leaseMs: 60_000 } })], clock.now())),
    );
    expect(replays.flat().filter((x) => x.outcome === 'admitted')).toHaveLength(1);
    const limited = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).admit([call({ callId: `r${i}`, rateLimit: { subject: 'key', perMinute: 10 } })], clock.now()),
      ),
    );
    expect(limited.flat().filter((x) => x.outcome === 'admitted')).toHaveLength(10);
  });

  it('writes every key with a TTL, each kind in its slot: the tenant’s, the shared breakers’, the approvals’ index, a failed-login subject’s', async () => {
    const clock = new ManualClock();
    const prefix = newPrefix();
    const store = open(prefix, clock);
    const now = clock.now();
    await store.admit(
      [
        call({ replay: { fingerprint: 'f', leaseMs: 60_000 }, lockPath: 'a', rateLimit: { subject: 'key', perMinute: 5 } }),
        call({ callId: 'c2', replay: { fingerprint: 'f', leaseMs: 60_000 } }),
        call({ callId: 'c3', approval: { argsHash: 'h', ttlMs: 60_000, open: OPEN } }),
      ],
      now,
    );
    const ref = { tenant: 'acme', sessionId: 's1', callId: 'c1', tool: 'Edit' };
    await store.settle(
      [
        {
          ...ref,
          breaker: { ...BREAKER, outcome: 'failure', probe: false },
          lock: { path: 'a', meta: { file_mtime_ms: 1, file_size_bytes: 1 }, ttlMs: 60_000 },
          replay: { result: { ok: true }, ttlMs: 60_000 },
        },
      ],
      now,
    );
    await store.claimRequest('acme', 'idem', 'f', 60_000);
    await store.hit('ip', 5, 60_000, now);

    const redis = new Redis(url);
    try {
      const keys = await redis.keys(`{${prefix}:*`);
      for (const key of keys) expect(await redis.pttl(key), key).toBeGreaterThan(0);
      // `{<prefix>:<slot…>}:<kind>:…`, the braces being the Cluster hash tag.
      const layout = new Set(
        keys.map((key) => `${key.slice(prefix.length + 2, key.indexOf('}'))} ${key.slice(key.indexOf('}') + 2).split(':')[0]}`),
      );
      expect([...layout].sort()).toEqual(
        [
          'tenant:acme approval',
          'tenant:acme approvals',
          'tenant:acme call',
          'tenant:acme lock',
          'tenant:acme rate',
          'tenant:acme request',
          'breakers breaker',
          'approvals approval-id',
          'approvals approvals-all',
          'hit:ip hit',
        ].sort(),
      );
    } finally {
      redis.disconnect();
    }
  });

  it('keeps a tenant, session or path with separators and braces apart', async () => {
    const clock = new ManualClock();
    const store = open(newPrefix(), clock);
    const meta = { file_mtime_ms: 5, file_size_bytes: 6 };
    const ref = { tenant: 'a:b', sessionId: 'c', callId: 'x', tool: 'Edit' };
    await store.settle(
      [{ ...ref, breaker: { ...BREAKER, outcome: 'neutral', probe: false }, lock: { path: '{p}', meta, ttlMs: 60_000 } }],
      clock.now(),
    );
    const [same, other] = await store.admit(
      [call({ tenant: 'a:b', sessionId: 'c', lockPath: '{p}' }), call({ tenant: 'a', sessionId: 'b:c', lockPath: '{p}' })],
      clock.now(),
    );
    expect(same).toMatchObject({ lock: meta });
    expect(other).toMatchObject({ lock: null });
  });
});
