import type { AdmissionStore } from './admission.js';
import type { ApprovalStore } from './approvals.js';
import type { CircuitStore } from './circuits.js';
import type { FileLockStore } from './file-locks.js';
import type { GrantStore } from './grants.js';
import type { HitCounter } from './hit-counter.js';
import type { RequestKeyStore } from './request-keys.js';

export type * from './admission.js';
export type * from './approvals.js';
export type * from './circuits.js';
export type * from './file-locks.js';
export type * from './grants.js';
export type * from './hit-counter.js';
export type * from './request-keys.js';

/**
 * Shared gateway state, every concern of it: what a consumer needing only
 * one takes is that one's interface. All values are JSON; all times are
 * epoch ms from the caller's clock. Implementations throw
 * `StateUnavailableError` when they cannot answer.
 */
export interface StateStore extends AdmissionStore, RequestKeyStore, FileLockStore, CircuitStore, ApprovalStore, HitCounter {
  /** Users' grants at OAuth providers and the records of the flow that makes them (docs/credentials.md). */
  readonly grants: GrantStore;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class StateUnavailableError extends Error {
  constructor(message = 'state store unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateUnavailableError';
  }
}
