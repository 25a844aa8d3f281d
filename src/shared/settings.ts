/** A breaker's thresholds, as a tool declares them and the state stores apply them. */
export interface BreakerSettings {
  failureThreshold: number;
  recoveryMs: number;
}

/** A tool's rate limit, per key and tool. */
export interface RateLimitSettings {
  perMinute: number;
}
