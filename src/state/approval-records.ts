import { randomBytes } from 'node:crypto';
import type { ApprovalRecord } from './state-store.js';

/** A new approval request's id; drawn in TypeScript for the Redis store too, as random numbers inside a Lua script are deterministic. */
export function newApprovalId(): string {
  return `apr_${randomBytes(16).toString('base64url')}`;
}

/** How both stores list approvals: oldest first, ties by id, so a listing is stable. */
export function byCreation(a: ApprovalRecord, b: ApprovalRecord): number {
  return a.created_at - b.created_at || a.id.localeCompare(b.id);
}
