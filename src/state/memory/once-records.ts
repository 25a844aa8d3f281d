import type { StoredResult } from '../state-store.js';

/** What a once-record replays: one call id's result, or one Idempotency-Key's whole response. */
export type RecordKind = 'call' | 'request';

interface Entry {
  kind: RecordKind;
  fingerprint: string;
  expiresAt: number;
  /**
   * The result as UTF-8 JSON once the runner completed; absent while it runs.
   * A Buffer lives outside the V8 heap, so the cap is what the records take,
   * rather than that plus the slack a garbage-collected heap keeps around a
   * large live set (measured: about twice the cap for strings).
   */
  json?: Buffer;
  bytes: number;
}

/** What a live record answers a caller bringing `fingerprint`; `result` is a fresh copy each time. */
type OnceAnswer = { outcome: 'mismatch' } | { outcome: 'in_flight' } | { outcome: 'done'; result: StoredResult };

/** A live record as the store reads it; `result` is a fresh copy each time. */
interface OnceRecordView {
  fingerprint: string;
  result?: StoredResult;
}

interface OnceRecordsOptions {
  /** The cap on the bytes of every record together. */
  maxBytes: number;
  /** Called once per record evicted to keep within the cap (not for expired ones). */
  onEvict?: (kind: RecordKind) => void;
}

/**
 * The once-record transitions of the memory store (call-id replay and
 * Idempotency-Key requests alike): a lease is started, completed with a
 * result or released, and a live record answers later callers.
 *
 * Replay records of the memory store: one map in least-recently-used order
 * (a Map iterates in insertion order, and a read re-inserts), under one byte
 * cap shared by both kinds. A record costs the UTF-8 bytes of its key, its
 * fingerprint and its result as JSON: results are kept serialized, in a
 * Buffer, so that is what they occupy. Only
 * completed records are evicted: a running one has waiters to wake and a
 * fingerprint that keeps a second runner out, and it is bounded by its lease.
 */
export class OnceRecords {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly onEvict: (kind: RecordKind) => void;

  constructor(options: OnceRecordsOptions) {
    this.maxBytes = options.maxBytes;
    this.onEvict = options.onEvict ?? (() => {});
  }

  /** The live record under `key`, now the most recently used; an expired one is dropped. */
  get(key: string, now: number): OnceRecordView | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.json === undefined
      ? { fingerprint: entry.fingerprint }
      : { fingerprint: entry.fingerprint, result: JSON.parse(entry.json.toString('utf8')) as StoredResult };
  }

  /** Undefined when no record is live: the caller may start one. */
  answer(key: string, fingerprint: string, now: number): OnceAnswer | undefined {
    const record = this.get(key, now);
    if (!record) return undefined;
    if (record.fingerprint !== fingerprint) return { outcome: 'mismatch' };
    return record.result ? { outcome: 'done', result: record.result } : { outcome: 'in_flight' };
  }

  /** A running record: its runner holds it until it completes or releases, or `expiresAt` lets another run. */
  start(kind: RecordKind, key: string, fingerprint: string, expiresAt: number): void {
    this.drop(key);
    this.put(key, { kind, fingerprint, expiresAt, bytes: cost(key, fingerprint) });
  }

  /**
   * Stores the result onto the runner's record only: without it the
   * fingerprint is unknown, so the result could not be replayed safely.
   * Returns whether there was one. A result larger than the whole cap is
   * evicted at once: the call simply runs again next time.
   */
  complete(key: string, result: StoredResult, expiresAt: number): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.drop(key);
    const json = Buffer.from(JSON.stringify(result), 'utf8');
    // Counted afresh: a record completed twice holds only the latest result.
    this.put(key, { ...entry, json, expiresAt, bytes: cost(key, entry.fingerprint) + json.length });
    this.evict();
    return true;
  }

  /** Drops a running record; returns false when a completed one is there (it stays). */
  release(key: string): boolean {
    if (this.entries.get(key)?.json !== undefined) return false;
    this.drop(key);
    return true;
  }

  sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.drop(key);
  }

  private put(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Oldest first; deleting from a Map while iterating it is safe. */
  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      if (entry.json === undefined) continue;
      this.drop(key);
      this.onEvict(entry.kind);
    }
  }
}

const cost = (...texts: string[]): number => texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
