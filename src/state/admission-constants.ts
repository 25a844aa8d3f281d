/**
 * The numbers both stores decide admission by. The memory store imports
 * them; the Redis scripts get them from the script loader (redis/scripts.ts),
 * which writes each as a Lua local where a script says `--- @constants`, so
 * the two cannot drift apart.
 */
export const ADMISSION_CONSTANTS = {
  /**
   * Rate-limit tokens are counted in 1/60000ths so that refilling `perMinute`
   * tokens per 60 000 ms adds exactly `perMinute` units per ms: integer
   * arithmetic, exact boundaries, in both stores.
   */
  TOKEN: 60_000,
  /** An idle bucket is full again after a minute, which is the same as having none. */
  BUCKET_IDLE_MS: 60_000,
  /**
   * What a caller stopped by a half-open breaker whose probe is still running is
   * told to wait: the probe usually settles within a tool timeout, so a short
   * retry learns the outcome sooner than the remaining probe lease would say.
   */
  HALF_OPEN_RETRY_MS: 1000,
} as const;
