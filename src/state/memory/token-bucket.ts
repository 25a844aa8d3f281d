import { ADMISSION_CONSTANTS } from '../admission-constants.js';
import type { Admission } from '../admission.js';
import { ExpiringMap } from './expiring-map.js';

const { TOKEN, BUCKET_IDLE_MS } = ADMISSION_CONSTANTS;

/** Token buckets (lua/includes/token-bucket.lua for Redis): `perMinute` tokens per subject and tool, refilled continuously. */
export class MemoryTokenBuckets {
  private readonly buckets = new ExpiringMap<{ level: number; at: number; expiresAt: number }>();

  /** `rate_limited` stops the call; otherwise the bucket's level now, to take a token from if the call is admitted. */
  check(key: string, perMinute: number, now: number): Extract<Admission, { outcome: 'rate_limited' }> | number {
    const bucket = this.buckets.get(key, now);
    const capacity = perMinute * TOKEN;
    const level = bucket ? Math.min(capacity, bucket.level + Math.max(0, now - bucket.at) * perMinute) : capacity;
    if (level < TOKEN) return { outcome: 'rate_limited', retryAfterMs: Math.ceil((TOKEN - level) / perMinute) };
    return level;
  }

  take(key: string, level: number, now: number): void {
    this.buckets.set(key, { level: level - TOKEN, at: now, expiresAt: now + BUCKET_IDLE_MS });
  }

  sweep(now: number): void {
    this.buckets.sweep(now);
  }
}
