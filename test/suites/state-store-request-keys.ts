import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { RequestKeyStore } from '../../src/state/request-keys.js';
import { TENANT, type StoreUnderTest } from './state-store-kit.js';

/** RequestKeyStore: Idempotency-Key claims of whole requests. */
export function describeRequestKeyStore(ctx: StoreUnderTest<RequestKeyStore>): void {
  let store: RequestKeyStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
  });

  describe('request idempotency keys', () => {
    it('claims once; the same request is in flight, another is a mismatch', async () => {
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'claimed' });
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'in_flight' });
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'mismatch' });
      expect(await store.claimRequest('other', 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'claimed' });
    });

    it('replays the completed response and refuses another fingerprint', async () => {
      await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
      const response = { results: [], messages: [{ role: 'tool' }] };
      await store.completeRequest(TENANT, 'idem-1', response, 60_000);
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'done', response });
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'mismatch' });
      clock.advance(60_000);
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'claimed' });
    });

    it('releases a claim without a response, never a completed one', async () => {
      await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
      await store.releaseRequest(TENANT, 'idem-1');
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'claimed' });
      await store.completeRequest(TENANT, 'idem-1', { ok: true }, 60_000);
      await store.releaseRequest(TENANT, 'idem-1');
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'done', response: { ok: true } });
    });

    it('lets a claim lapse when its lease expires', async () => {
      await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
      clock.advance(10_000);
      expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'claimed' });
    });

    it('awaitRequest resolves on completion and returns null at its timeout', async () => {
      await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
      expect(await store.awaitRequest(TENANT, 'idem-1', 40)).toBeNull();
      const waiting = store.awaitRequest(TENANT, 'idem-1', 5000);
      setTimeout(() => void store.completeRequest(TENANT, 'idem-1', { ok: 1 }, 60_000), 20);
      expect(await waiting).toEqual({ ok: 1 });
      expect(await store.awaitRequest(TENANT, 'missing', 5000)).toBeNull();
    });
  });
}
