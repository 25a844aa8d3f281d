import { GatewayError } from '../../protocol/errors.js';
import type { RegisteredTool } from '../../registry/registry.js';
import type { AdmitRequest } from '../../state/state-store.js';
import type { Caller, Gate, PlannedCall } from '../types.js';

/**
 * A key's own limit overrides the tool's, which overrides the default; no limit, no check. The bucket is the key's, or under `per: user`
 * the user's of that key (a call for no user: the key's own).
 */
export function rateLimitPart(entry: RegisteredTool, caller: Caller): AdmitRequest['rateLimit'] {
  const limit = caller.rateLimit ?? entry.rateLimit;
  if (!limit) return undefined;
  // A key id never holds a line break, so no user's bucket is another key's.
  const subject = limit.per === 'user' && caller.user !== undefined ? `${caller.keyId}\n${caller.user}` : caller.keyId;
  return { subject, perMinute: limit.perMinute };
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
