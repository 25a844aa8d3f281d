import type { ManualClock } from '../../src/shared/clock.js';
import type { Admission, AdmitRequest, SettleRequest } from '../../src/state/admission.js';
import type { StateStore } from '../../src/state/state-store.js';

/** What the parts of the state-store suite share: the requests they send, and the store of the running test. */

export const TENANT = 'acme';
export const BREAKER = { scope: 'Edit', failureThreshold: 3, recoveryMs: 300_000 };
export const LEASE = { fingerprint: 'fp-1', leaseMs: 30_000 };

export function call(overrides: Partial<AdmitRequest> = {}): AdmitRequest {
  return { tenant: TENANT, sessionId: 's1', callId: 'c1', tool: 'Edit', breaker: BREAKER, ...overrides };
}

export function outcome(
  breakerOutcome: SettleRequest['breaker']['outcome'],
  overrides: Partial<SettleRequest> & { probe?: boolean } = {},
): SettleRequest {
  const { probe = false, ...rest } = overrides;
  return {
    tenant: TENANT,
    sessionId: 's1',
    callId: 'c1',
    tool: 'Edit',
    breaker: { ...BREAKER, outcome: breakerOutcome, probe },
    ...rest,
  };
}

/** The store of the running test and its clock, as the suite's beforeEach made them. */
export type StoreUnderTest<S = StateStore> = () => { store: S; clock: ManualClock };

/** The suite's shorthands, bound to the store of the running test. */
export interface SuiteOps {
  admit1: (request: AdmitRequest) => Promise<Admission>;
  settle: (...requests: SettleRequest[]) => Promise<void>;
  openBreaker: () => Promise<void>;
}
