import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { Admission, AdmitRequest, SettleRequest } from '../../src/state/admission.js';
import type { StateStore } from '../../src/state/state-store.js';
import { describeAdmissionStore } from './state-store-admission.js';
import { describeApprovalStore } from './state-store-approvals.js';
import { describeCircuitStore } from './state-store-circuits.js';
import { describeFileLockStore } from './state-store-file-locks.js';
import { describeGrantStore } from './state-store-grants.js';
import { describeHitCounter } from './state-store-hit-counter.js';
import { call, outcome } from './state-store-kit.js';
import { describeRequestKeyStore } from './state-store-request-keys.js';

/** A fresh, isolated store whose `now`-less operations read `clock`. */
export interface StateStoreHarness {
  store: StateStore;
  clock: ManualClock;
  cleanup(): Promise<void>;
}

/** The state-store suite: one part per interface StateStore composes; every implementation runs them all, unchanged. */
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

    describeAdmissionStore(ctx, ops);
    describeApprovalStore(ctx, call, admit1);
    describeCircuitStore(ctx, ops);
    describeRequestKeyStore(ctx);
    describeHitCounter(ctx);
    describeFileLockStore(ctx);
    describeGrantStore(ctx);

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
