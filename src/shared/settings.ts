export interface BreakerSettings {
  failureThreshold: number;
  recoveryMs: number;
  /** One breaker for every tenant (`breaker.shared`); the stores ignore it, the scope says it. */
  shared?: boolean;
}

export interface RateLimitSettings {
  perMinute: number;
  /** `user`: each user of a key has a bucket of their own, and a call for no user the key's; absent: one bucket per key. */
  per?: 'user';
}

/** A configuration's `rate_limit` as the gates read it. */
export function rateLimitOf(config: { per_minute: number; per?: 'key' | 'user' }): RateLimitSettings {
  return config.per === 'user' ? { perMinute: config.per_minute, per: 'user' } : { perMinute: config.per_minute };
}
