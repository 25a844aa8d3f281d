import { randomUUID } from 'node:crypto';
import type { AdmitRequest } from '../../../../src/state/state-store.js';

/** A fresh key prefix per store, and an admit request of a breaker-guarded Edit, shared by the Redis store tests. */

export const newPrefix = () => `test-${randomUUID()}`;
export const BREAKER = { scope: 'Edit', failureThreshold: 3, recoveryMs: 300_000 };
export const call = (overrides: Partial<AdmitRequest> = {}): AdmitRequest => ({
  tenant: 'acme',
  sessionId: 's1',
  callId: 'c1',
  tool: 'Edit',
  breaker: BREAKER,
  ...overrides,
});
