import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditTrail, queryAudit, verifyChain, type AuditStore, type CallEntry } from '../../src/audit/index.js';
import { ManualClock } from '../../src/shared/clock.js';

/** Fresh, empty storage for each test; `open` makes a store over it, `rewrite` edits a segment's bytes behind the store's back. */
export interface AuditStoreHarness {
  open(): AuditStore;
  rewrite(chain: string, segment: string, edit: (text: string) => string): Promise<void>;
  cleanup(): Promise<void>;
}

export function callEntry(n: number, over: Partial<CallEntry> = {}): CallEntry {
  return {
    kind: 'call',
    tenant: 'acme',
    key_id: 'k1',
    session_id: `s${n % 3}`,
    request_id: `req-${n}`,
    call_id: `call_${n}`,
    tool: n % 2 === 0 ? 'Read' : 'Write',
    arguments_sha256: 'a'.repeat(64),
    arguments: { path: `f${n}.txt`, note: 'ünïcödé ✓ "quoted"\n' },
    decision: 'allow',
    policy_reason: 'no rule matched',
    status: 'success',
    result_sha256: 'b'.repeat(64),
    replayed: false,
    ...over,
  };
}

const quiet = { failed: () => {}, ok: () => {} };

/** A trail over `store`'s chain `replica`, time standing still unless moved. */
export async function openTrail(store: AuditStore, replica = 'r1', clock = new ManualClock(Date.UTC(2030, 0, 1))): Promise<AuditTrail> {
  const chain = await store.open(replica);
  return new AuditTrail({ store, chain, clock, flushMs: 5, maxPending: 1_000, health: quiet, onDropped: () => {} });
}

/** The AuditStore contract, as every audit store must hold it. */
export function describeAuditStore(name: string, make: () => Promise<AuditStoreHarness>): void {
  describe(`AuditStore suite: ${name}`, () => {
    let harness: AuditStoreHarness;

    beforeEach(async () => {
      harness = await make();
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('keeps records in order, one chain that verifies, and continues it after a restart', async () => {
      let trail = await openTrail(harness.open());
      await Promise.all(Array.from({ length: 20 }, (_, i) => trail.record(callEntry(i + 1), true)));
      await trail.close();
      trail = await openTrail(harness.open());
      await Promise.all(Array.from({ length: 5 }, (_, i) => trail.record(callEntry(i + 21), true)));
      await trail.close();
      const store = harness.open();
      expect(await store.chains()).toEqual(['r1']);
      expect(await verifyChain(store, 'r1')).toEqual({ chain: 'r1', records: 25 });
      const seqs: number[] = [];
      for (const segment of await store.segments('r1'))
        for await (const line of store.lines('r1', segment)) seqs.push(JSON.parse(line).seq);
      expect(seqs).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    });

    it('commits concurrent durable records together: fewer appends than records', async () => {
      const store = harness.open();
      let appends = 0;
      const append = store.append.bind(store);
      store.append = (lines, first, durable) => (appends++, append(lines, first, durable));
      const trail = await openTrail(store);
      await Promise.all(Array.from({ length: 50 }, (_, i) => trail.record(callEntry(i + 1), true)));
      await trail.close();
      expect(appends).toBeLessThan(50);
      expect((await verifyChain(harness.open(), 'r1')).records).toBe(50);
    });

    it('writes records no call waits for within flush_ms', async () => {
      const trail = await openTrail(harness.open());
      trail.record(callEntry(1), false);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await verifyChain(harness.open(), 'r1')).records).toBe(1);
      await trail.close();
    });

    describe('verify names the first record changed, removed or reordered', () => {
      let segment: string;
      beforeEach(async () => {
        const trail = await openTrail(harness.open());
        // Queued in one turn: one append, so one segment of every store holds them all.
        await Promise.all(Array.from({ length: 6 }, (_, i) => trail.record(callEntry(i + 1), true)));
        await trail.close();
        segment = (await harness.open().segments('r1'))[0]!;
      });
      const lines = (text: string) => text.split('\n').slice(0, -1);
      const joined = (parts: string[]) => `${parts.join('\n')}\n`;

      it('one changed byte', async () => {
        await harness.rewrite('r1', segment, (text) => text.replace('f3.txt', 'f9.txt'));
        expect((await verifyChain(harness.open(), 'r1')).problem).toMatch(/record 3 was changed/);
      });
      it('a removed record', async () => {
        await harness.rewrite('r1', segment, (text) => joined(lines(text).filter((_, i) => i !== 3)));
        expect((await verifyChain(harness.open(), 'r1')).problem).toMatch(/record 4 removed/);
      });
      it('two records swapped', async () => {
        await harness.rewrite('r1', segment, (text) => {
          const all = lines(text);
          [all[1], all[2]] = [all[2]!, all[1]!];
          return joined(all);
        });
        expect((await verifyChain(harness.open(), 'r1')).problem).toMatch(/record 2 removed|record 3/);
      });
      it('a record rewritten with a fresh hash', async () => {
        const { seal } = await import('../../src/audit/chain.js');
        await harness.rewrite('r1', segment, (text) => {
          const all = lines(text);
          const { hash: _hash, seq, time, replica, prev, ...entry } = JSON.parse(all[1]!);
          all[1] = seal({ ...entry, status: 'error' }, { seq, time, replica, prev }).line;
          return joined(all);
        });
        expect((await verifyChain(harness.open(), 'r1')).problem).toMatch(/record 3 does not follow record 2/);
      });
    });

    it("answers a tenant's records newest first, filtered and bounded", async () => {
      const clock = new ManualClock(Date.UTC(2030, 0, 1));
      const trail = await openTrail(harness.open(), 'r1', clock);
      for (let i = 1; i <= 30; i++) {
        clock.advance(1_000);
        await trail.record(callEntry(i, i % 5 === 0 ? { tenant: 'other' } : {}), true);
      }
      await trail.close();
      const store = harness.open();
      const all = await queryAudit(store, { tenant: 'acme', limit: 100 });
      expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => 30 - i).filter((n) => n % 5 !== 0));
      expect((await queryAudit(store, { tenant: 'acme', limit: 3 })).map((r) => r.seq)).toEqual([29, 28, 27]);
      const session = await queryAudit(store, { tenant: 'acme', sessionId: 's1', tool: 'Write', limit: 100 });
      expect(session.every((r) => r.kind === 'call' && r.session_id === 's1' && r.tool === 'Write')).toBe(true);
      expect(session.length).toBeGreaterThan(0);
      const since = await queryAudit(store, { tenant: 'acme', since: Date.UTC(2030, 0, 1) + 26_000, limit: 100 });
      expect(since.map((r) => r.seq)).toEqual([29, 28, 27, 26]);
      expect(await queryAudit(store, { tenant: 'nobody', limit: 100 })).toEqual([]);
    });
  });
}
