import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import type { SpillStore } from '../../src/spill/spill-store.js';
import { ManualClock } from '../../src/shared/clock.js';

export interface SpillQuotaOptions {
  ttlMs: number;
  tenantQuotaBytes: number;
  onQuotaRemoval: () => void;
  clock: ManualClock;
}

/** Fresh, empty storage; each `open` is a new store instance over it, as a restart would make. */
export interface SpillQuotaHarness {
  open(options: SpillQuotaOptions): SpillStore;
  cleanup(): Promise<void>;
}

const KB = 1024;
const TTL = 86_400_000;
const output = (tag: string, bytes = 10 * KB) => tag.padEnd(bytes, '.');

async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** spill.tenant_quota_bytes, as every spill store must hold it. */
export function describeSpillQuota(name: string, make: () => Promise<SpillQuotaHarness>): void {
  describe(`SpillStore quota suite: ${name}`, () => {
    let harness: SpillQuotaHarness;
    let clock: ManualClock;
    let metrics: Metrics;
    let store: SpillStore;
    const open = (tenantQuotaBytes = 35 * KB) =>
      harness.open({ ttlMs: TTL, tenantQuotaBytes, clock, onQuotaRemoval: () => metrics.spillQuotaRemovals.inc() });
    const removals = async () => (await metrics.spillQuotaRemovals.get()).values[0]?.value ?? 0;
    /** One 10 KB output a tick, so their ages are apart. */
    const put = async (on: SpillStore, tenant: string, tag: string) => {
      clock.advance(1);
      return on.put(tenant, output(tag));
    };

    beforeEach(async () => {
      harness = await make();
      clock = new ManualClock();
      metrics = createMetrics({ processMetrics: false });
      store = open();
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it("removes the tenant's oldest outputs once it is over its quota, leaving other tenants alone", async () => {
      const others = [await put(store, 'globex', 'g1'), await put(store, 'globex', 'g2')];
      const mine = [];
      for (const tag of ['a1', 'a2', 'a3']) mine.push(await put(store, 'acme', tag));
      expect(await removals()).toBe(0);
      mine.push(await put(store, 'acme', 'a4'));
      expect(await removals()).toBe(1);
      expect(await store.stat('acme', mine[0]!.id)).toBeNull();
      for (const record of mine.slice(1)) expect(await store.stat('acme', record.id)).not.toBeNull();
      for (const record of others) expect(await store.stat('globex', record.id)).not.toBeNull();
      mine.push(await put(store, 'acme', 'a5'));
      expect(await removals()).toBe(2);
      expect(await store.stat('acme', mine[1]!.id)).toBeNull();
      expect(await text((await store.get('acme', mine[4]!.id))!.body)).toBe(output('a5'));
    });

    it('keeps and serves whole the newest output even when it alone is over the quota', async () => {
      const old = await put(store, 'acme', 'old');
      clock.advance(1);
      const huge = await store.put('acme', output('huge', 50 * KB));
      expect(await store.stat('acme', old.id)).toBeNull();
      expect(await text((await store.get('acme', huge.id))!.body)).toBe(output('huge', 50 * KB));
      expect(await removals()).toBe(1);
    });

    it('counts what was stored before a restart', async () => {
      const before = [];
      for (const tag of ['a1', 'a2', 'a3']) before.push(await put(store, 'acme', tag));
      const restarted = open();
      const after = await put(restarted, 'acme', 'a4');
      expect(await removals()).toBe(1);
      expect(await restarted.stat('acme', before[0]!.id)).toBeNull();
      for (const record of [...before.slice(1), after]) expect(await restarted.stat('acme', record.id)).not.toBeNull();
    });

    it('stays exact under concurrent spills of one tenant: within the quota, the newest whole, every removal counted', async () => {
      const records = await Promise.all(Array.from({ length: 30 }, (_, i) => store.put('acme', output(`c${i}`))));
      const left = [];
      for (const record of records) if (await store.stat('acme', record.id)) left.push(record);
      expect(left.length).toBe(3);
      expect(await removals()).toBe(27);
      // The quota still counts right afterwards: one more output removes exactly one.
      const next = await put(store, 'acme', 'next');
      expect(await removals()).toBe(28);
      expect(await text((await store.get('acme', next.id))!.body)).toBe(output('next'));
    });

    it('counts no output that expired and was swept', async () => {
      for (const tag of ['a1', 'a2', 'a3']) await put(store, 'acme', tag);
      clock.advance(TTL);
      expect(await store.sweep(clock.now())).toBe(3);
      for (const tag of ['b1', 'b2', 'b3']) await put(store, 'acme', tag);
      expect(await removals()).toBe(0);
    });
  });
}
