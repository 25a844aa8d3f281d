import { windowStart, windowVerdict } from '../hit-counter.js';

/** Fixed-window counters (lua/hit.lua for Redis), one per subject, replaced when the window has passed. */
export class MemoryFixedWindows {
  private readonly counters = new Map<string, { windowStart: number; count: number; expiresAt: number }>();

  hit(subject: string, limit: number, windowMs: number, now: number, cost: number): { allowed: boolean; retryAfterMs: number } {
    const start = windowStart(now, windowMs);
    const current = this.counters.get(subject);
    const counter = current && current.windowStart === start ? current : { windowStart: start, count: 0, expiresAt: start + windowMs };
    if (cost > 0) {
      counter.count += cost;
      this.counters.set(subject, counter);
    }
    return windowVerdict(counter.count, limit, start, windowMs, now);
  }

  sweep(now: number): void {
    for (const [key, value] of this.counters) if (value.expiresAt <= now) this.counters.delete(key);
  }
}
