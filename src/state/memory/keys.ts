import type { CallRef } from '../admission.js';

/**
 * Every key of the memory store; parts JSON-encoded and kinds first, so no two keys collide. A user's (CallRef.user) comes last, so a
 * session's state for one user is never another's, nor the key's own.
 */
const key = (...parts: Array<string | undefined>): string => JSON.stringify(parts.filter((part) => part !== undefined));

export const callKey = (ref: CallRef): string => key('call', ref.tenant, ref.sessionId, ref.callId, ref.user);
export const requestKey = (tenant: string, idempotencyKey: string): string => key('request', tenant, idempotencyKey);
export const approvalKey = (tenant: string, sessionId: string, tool: string, argsHash: string, user?: string): string =>
  key(tenant, sessionId, tool, argsHash, user);
export const lockKey = (tenant: string, sessionId: string, path: string, user?: string): string => key(tenant, sessionId, path, user);
export const bucketKey = (subject: string, tool: string): string => key(subject, tool);
export const fileLockKey = (tenant: string, path: string): string => key('file-lock', tenant, path);
