import { GatewayError } from '../../protocol/errors.js';
import type { RegisteredTool } from '../../registry/registry.js';
import type { AdmitRequest } from '../../state/state-store.js';
import type { Caller, PlannedCall } from '../types.js';

/**
 * Gate 7: limits count per key and tool. A key's own limit overrides the
 * tool's, which overrides the default; no limit at all means no check.
 */
export function rateLimitPart(entry: RegisteredTool, caller: Caller): AdmitRequest['rateLimit'] {
  const limit = caller.rateLimit ?? entry.rateLimit;
  return limit ? { subject: caller.keyId, perMinute: limit.perMinute } : undefined;
}

/**
 * No token left: retryable when the bucket has refilled one, which the store works out (state/memory/token-bucket.ts,
 * lua/includes/token-bucket.lua).
 */
export function rateLimitedError(call: PlannedCall, retryAfterMs: number): GatewayError {
  return new GatewayError('RATE_LIMITED', {
    message: `The rate limit for ${call.name} is reached.`,
    retryAfterMs,
    suggestion: 'Retry after retry_after_ms.',
  });
}
