import type { CallRef } from '../state-store.js';

/**
 * Every key of the memory store, built here and nowhere else (as redis/keys.ts
 * does for Redis). Parts are JSON-encoded, so no separator inside a tenant,
 * session or path can make two keys collide; record kinds differ in their
 * first part, so a call key never equals a request key.
 */
const key = (...parts: string[]): string => JSON.stringify(parts);

export const callKey = (ref: CallRef): string => key('call', ref.tenant, ref.sessionId, ref.callId);
export const requestKey = (tenant: string, idempotencyKey: string): string => key('request', tenant, idempotencyKey);
export const approvalKey = (tenant: string, sessionId: string, tool: string, argsHash: string): string =>
  key(tenant, sessionId, tool, argsHash);
export const lockKey = (tenant: string, sessionId: string, path: string): string => key(tenant, sessionId, path);
export const bucketKey = (subject: string, tool: string): string => key(subject, tool);
