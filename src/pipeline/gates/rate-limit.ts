import type { RegisteredTool } from '../../registry/registry.js';
import type { AdmitRequest } from '../../state/state-store.js';
import type { Caller } from '../types.js';

/**
 * Gate 7: limits count per key and tool. A key's own limit overrides the
 * tool's, which overrides the default; no limit at all means no check.
 */
export function rateLimitPart(entry: RegisteredTool, caller: Caller): AdmitRequest['rateLimit'] {
  const limit = caller.rateLimit ?? entry.rateLimit;
  return limit ? { subject: caller.keyId, perMinute: limit.perMinute } : undefined;
}
