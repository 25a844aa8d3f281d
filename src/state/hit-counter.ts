/**
 * Fixed-window counters; used to slow down failed authentication. Windows
 * start at multiples of their length, so every replica agrees on which
 * window a moment falls in whatever its clock's origin.
 */
export interface HitCounter {
  /** Add `cost` (default 1; 0 only reads) to a fixed-window counter and say whether it is still within `limit`. */
  hit(subject: string, limit: number, windowMs: number, now: number, cost?: number): Promise<{ allowed: boolean; retryAfterMs: number }>;
}

export function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

/** Whether a window's count is still within `limit`; when not, the wait is until the window ends. */
export function windowVerdict(
  count: number,
  limit: number,
  start: number,
  windowMs: number,
  now: number,
): { allowed: boolean; retryAfterMs: number } {
  const allowed = count <= limit;
  return { allowed, retryAfterMs: allowed ? 0 : start + windowMs - now };
}
