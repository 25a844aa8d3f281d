import type { StoredResult } from './admission.js';

/** Outcome of claiming a whole-request Idempotency-Key. */
export type RequestClaim =
  { outcome: 'claimed' } | { outcome: 'done'; response: StoredResult } | { outcome: 'in_flight' } | { outcome: 'mismatch' };

/** Whole-request Idempotency-Key records: claimed under a lease, completed with the response, or released. */
export interface RequestKeyStore {
  claimRequest(tenant: string, key: string, fingerprint: string, leaseMs: number): Promise<RequestClaim>;
  completeRequest(tenant: string, key: string, response: StoredResult, ttlMs: number): Promise<void>;
  releaseRequest(tenant: string, key: string): Promise<void>;
  awaitRequest(tenant: string, key: string, timeoutMs: number): Promise<StoredResult | null>;
}
