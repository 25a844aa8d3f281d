export interface BreakerSettings {
  failureThreshold: number;
  recoveryMs: number;
  /** One breaker for every tenant (`breaker.shared`); the stores ignore it, the scope says it. */
  shared?: boolean;
}

export interface RateLimitSettings {
  perMinute: number;
}
