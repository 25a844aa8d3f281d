import type { CallRef } from '../admission.js';

/** Every key of the memory store; parts JSON-encoded and kinds first, so no two keys collide. */
const key = (...parts: string[]): string => JSON.stringify(parts);

export const callKey = (ref: CallRef): string => key('call', ref.tenant, ref.sessionId, ref.callId);
export const requestKey = (tenant: string, idempotencyKey: string): string => key('request', tenant, idempotencyKey);
export const approvalKey = (tenant: string, sessionId: string, tool: string, argsHash: string): string =>
  key(tenant, sessionId, tool, argsHash);
export const lockKey = (tenant: string, sessionId: string, path: string): string => key(tenant, sessionId, path);
export const bucketKey = (subject: string, tool: string): string => key(subject, tool);
export const fileLockKey = (tenant: string, path: string): string => key('file-lock', tenant, path);
