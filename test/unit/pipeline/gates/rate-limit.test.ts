import { describe, expect, it } from 'vitest';
import { rateLimitedError, rateLimitPart } from '../../../../src/pipeline/gates/rate-limit.js';
import { caller, plannedCall } from '../../../helpers/gates.js';

describe('rate-limit gate: a token per key and tool, or RATE_LIMITED', () => {
  it('no token left answers RATE_LIMITED, retryable, with the wait until the next token', () => {
    expect(rateLimitedError(plannedCall({ name: 'Fetch' }), 60_000).toCallError()).toEqual({
      code: 'RATE_LIMITED',
      message: 'The rate limit for Fetch is reached.',
      retryable: true,
      retry_after_ms: 60_000,
      suggestion: 'Retry after retry_after_ms.',
    });
  });

  it('counts per key and tool: the key’s own limit over the tool’s; none at all asks nothing', () => {
    const limited = plannedCall({ name: 'Fetch', rateLimit: { perMinute: 10 } }).entry!;
    expect(rateLimitPart(limited, caller())).toEqual({ subject: 'agent', perMinute: 10 });
    expect(rateLimitPart(limited, caller({ rateLimit: { perMinute: 2 } }))).toEqual({ subject: 'agent', perMinute: 2 });
    expect(rateLimitPart(plannedCall({ name: 'Free' }).entry!, caller())).toBeUndefined();
  });
});
