import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { Admission, AdmitRequest, SettleRequest, StateStore } from '../../src/state/state-store.js';
import { describeAdmitAndReplay } from './state-store-admit.js';
import { describeApprovals } from './state-store-approvals.js';
import { describeBreaker } from './state-store-breaker.js';
import { describeGateOrderAndLocks } from './state-store-gates.js';
import { describeHit } from './state-store-hit.js';
import { call, outcome } from './state-store-kit.js';
import { describeRateLimit } from './state-store-rate-limit.js';
import { describeRequestKeys } from './state-store-request-keys.js';

/** A fresh, isolated store whose `now`-less operations read `clock`. */
export interface StateStoreHarness {
  store: StateStore;
  clock: ManualClock;
  cleanup(): Promise<void>;
}

/** The state-store suite; every implementation runs it unchanged. */
export function describeStateStore(name: string, make: () => Promise<StateStoreHarness>): void {
  describe(`StateStore suite: ${name}`, () => {
    let harness: StateStoreHarness;
    let store: StateStore;
    let clock: ManualClock;

    beforeEach(async () => {
      harness = await make();
      ({ store, clock } = harness);
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    const admit1 = async (request: AdmitRequest): Promise<Admission> => {
      const answers = await store.admit([request], clock.now());
      expect(answers).toHaveLength(1);
      return answers[0] as Admission;
    };
    const settle = (...requests: SettleRequest[]) => store.settle(requests, clock.now());
    const openBreaker = () => settle(outcome('failure'), outcome('failure'), outcome('failure'));
    const ctx = () => ({ store, clock });
    const ops = { admit1, settle, openBreaker };

    describeAdmitAndReplay(ctx, ops);
    describeApprovals(ctx, call, admit1);
    describeGateOrderAndLocks(ctx, ops);
    describeBreaker(ctx, ops);
    describeRateLimit(ctx, ops);
    describeRequestKeys(ctx);
    describeHit(ctx);

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
