import type { Readable } from 'node:stream';

export interface SpillRecord {
  id: string;
  uri: string;
  bytes: number;
  sha256: string;
}

/** A put the store could not take; the output was still counted and hashed whole, so a cut payload can say what it was. */
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

/** Outputs cut by the budgets. Entries belong to a tenant (a read under another finds nothing) and expire after the TTL. */
export interface SpillStore {
  /** Store a whole output. An async iterable is written as it arrives, never held whole in memory. */
  put(tenant: string, content: string | Buffer | AsyncIterable<Buffer>): Promise<SpillRecord>;
  /** Null when absent, expired or another tenant's; `range` is inclusive and validated by the caller via `stat`. */
  get(tenant: string, id: string, range?: { start: number; end: number }): Promise<SpillRead | null>;
  stat(tenant: string, id: string): Promise<{ size: number; sha256: string } | null>;
  sweep(now: number): Promise<number>;
  ping(): Promise<void>;
}
