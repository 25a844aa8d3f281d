import { describe, expect, it } from 'vitest';
import { mergedSettings, settingsOf } from '../../../src/tools/settings.js';

describe('a config entry’s settings as a tool carries them', () => {
  it('later entries win where they set a value; keys that are not settings are left out', () => {
    const server = { timeout_ms: 1000, requires_approval: true, prefix: 'x_' } as never;
    expect(mergedSettings(server, { timeout_ms: 2000 })).toEqual({ timeout_ms: 2000, requires_approval: true });
  });

  it('maps the config names, and leaves absent ones undefined so the registry defaults apply', () => {
    expect(
      settingsOf({ timeout_ms: 5, breaker: { failure_threshold: 3 }, rate_limit: { per_minute: 60 }, max_arg_chars: 10 } as never),
    ).toEqual({
      timeoutMs: 5,
      requiresApproval: undefined,
      breaker: { failureThreshold: 3, recoveryMs: undefined, shared: undefined },
      rateLimit: { perMinute: 60 },
      maxArgChars: 10,
    });
  });
});
