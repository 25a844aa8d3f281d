import { createHash } from 'node:crypto';

/** At most this many tokens are remembered; the oldest go first. */
const MAX_ENTRIES = 10_000;

/**
 * Verified tokens by their SHA-256, each until it expires: a token presented again costs one hash and one lookup,
 * no signature check or introspection. The token itself is never kept.
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(private readonly max = MAX_ENTRIES) {}

  static digest(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  get(digest: string, now: number): T | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (entry.until > now) return entry.value;
    this.entries.delete(digest);
    return undefined;
  }

  set(digest: string, value: T, until: number, now: number): void {
    if (until <= now) return;
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(digest, { value, until });
  }
}
