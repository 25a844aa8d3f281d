import type { StoredResult } from '../admission.js';

/** What a once-record replays: one call id's result, or one Idempotency-Key's whole response. */
export type RecordKind = 'call' | 'request';

interface Entry {
  kind: RecordKind;
  fingerprint: string;
  expiresAt: number;
  /** The result as UTF-8 JSON, absent while running: off the V8 heap, so the cap is what records really take. */
  json?: Buffer;
  bytes: number;
}

type OnceAnswer = { outcome: 'mismatch' } | { outcome: 'in_flight' } | { outcome: 'done'; result: StoredResult };

interface OnceRecordView {
  fingerprint: string;
  result?: StoredResult;
}

interface OnceRecordsOptions {
  maxBytes: number;
  onEvict?: (kind: RecordKind) => void;
}

/**
 * Call-id and Idempotency-Key records: started as a lease, completed or
 * released. One map in least-recently-used order under one byte cap; only
 * completed records are evicted (a running one is bounded by its lease).
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

  answer(key: string, fingerprint: string, now: number): OnceAnswer | undefined {
    const record = this.get(key, now);
    if (!record) return undefined;
    if (record.fingerprint !== fingerprint) return { outcome: 'mismatch' };
    return record.result ? { outcome: 'done', result: record.result } : { outcome: 'in_flight' };
  }

  start(kind: RecordKind, key: string, fingerprint: string, expiresAt: number): void {
    this.drop(key);
    this.put(key, { kind, fingerprint, expiresAt, bytes: cost(key, fingerprint) });
  }

  /** Only onto the runner's record (its fingerprint makes replay safe); whether there was one. */
  complete(key: string, result: StoredResult, expiresAt: number): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.drop(key);
    const json = Buffer.from(JSON.stringify(result), 'utf8');
    this.put(key, { ...entry, json, expiresAt, bytes: cost(key, entry.fingerprint) + json.length });
    this.evict();
    return true;
  }

  /** A completed record stays: false. */
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
