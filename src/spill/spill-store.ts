import type { Readable } from 'node:stream';

/** Where a spilled output lives and how to check it. */
export interface SpillRecord {
  id: string;
  /** `file://…` or `s3://…` */
  uri: string;
  bytes: number;
  sha256: string;
}

/**
 * A put the store could not take. The output was still counted and hashed
 * whole as it went by (a stream read to its end), so a cut payload can say
 * what it was; nothing of it can be fetched.
 */
interface SpillFailure {
  failed: true;
  bytes: number;
  sha256: string;
}

export type SpillOutcome = SpillRecord | SpillFailure;

export function isSpillFailure(outcome: SpillOutcome): outcome is SpillFailure {
  return 'failed' in outcome;
}

export interface SpillRead {
  size: number;
  sha256: string;
  /** The requested byte range, inclusive, as in an HTTP Range header. */
  body: Readable;
}

/**
 * Object store for outputs cut by the budgets. Entries belong to a tenant: a
 * read under another tenant finds nothing. Entries expire after the store's TTL.
 */
export interface SpillStore {
  /** Store a whole output. An async iterable is written as it arrives, never held whole in memory. */
  put(tenant: string, content: string | Buffer | AsyncIterable<Buffer>): Promise<SpillRecord>;
  /**
   * Null when absent, expired or another tenant's. `range` is inclusive and already validated against the size by the caller via `stat`.
   */
  get(tenant: string, id: string, range?: { start: number; end: number }): Promise<SpillRead | null>;
  stat(tenant: string, id: string): Promise<{ size: number; sha256: string } | null>;
  /** Remove expired entries; returns how many went. */
  sweep(now: number): Promise<number>;
  ping(): Promise<void>;
}
