/** The numbers both stores decide admission by; the Lua scripts get them as locals (`--- @constants`, redis/scripts.ts). */
export const ADMISSION_CONSTANTS = {
  /** Tokens in 1/60000ths: refilling `perMinute` per minute adds exactly `perMinute` units per ms, integer arithmetic. */
  TOKEN: 60_000,
  /** An idle bucket is full again after a minute, which is the same as having none. */
  BUCKET_IDLE_MS: 60_000,
  /** The wait told to a caller stopped by a running probe: a short retry learns the outcome sooner than the lease. */
  HALF_OPEN_RETRY_MS: 1000,
  /** How long an unreleased file lock record, with its fence, outlives its last grant (docs/replicas.md, "The write lock"). */
  FILE_LOCK_RECORD_MS: 86_400_000,
} as const;
