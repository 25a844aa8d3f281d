import { GatewayError } from '../../protocol/errors.js';
import type { RegisteredTool } from '../../registry/registry.js';
import type { AdmitRequest } from '../../state/state-store.js';
import type { Caller, Gate, PlannedCall } from '../types.js';

/** A key's own limit overrides the tool's, which overrides the default; no limit, no check. */
export function rateLimitPart(entry: RegisteredTool, caller: Caller): AdmitRequest['rateLimit'] {
  const limit = caller.rateLimit ?? entry.rateLimit;
  return limit ? { subject: caller.keyId, perMinute: limit.perMinute } : undefined;
}

/** Retryable once the bucket has refilled a token (state/memory/token-bucket.ts). */
export function rateLimitedError(call: PlannedCall, retryAfterMs: number): GatewayError {
  return new GatewayError('RATE_LIMITED', {
    message: `The rate limit for ${call.name} is reached.`,
    retryAfterMs,
    suggestion: 'Retry after retry_after_ms.',
  });
}

/** Gate 7: no token left in the key's bucket for the tool stops the call at admission. */
export const rateLimitGate: Gate = {
  name: 'rate limit',
  admit(call, request, ctx) {
    const part = rateLimitPart(call.entry!, ctx.caller);
    if (part) request.rateLimit = part;
  },
  answer: (call, admission) => (admission.outcome === 'rate_limited' ? rateLimitedError(call, admission.retryAfterMs) : undefined),
};
