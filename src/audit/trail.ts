import type { Clock } from '../shared/clock.js';
import type { AuditStore, OpenedChain } from './audit-store.js';
import { GENESIS, seal, type ChainHead } from './chain.js';
import type { AuditEntry } from './record.js';

/** A record that had to be stored before its call is answered could not be. */
export class AuditUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the audit trail cannot be written', cause === undefined ? undefined : { cause });
    this.name = 'AuditUnavailableError';
  }
}

interface TrailHealth {
  failed(err: unknown): void;
  ok(): void;
}

interface AuditTrailOptions {
  store: AuditStore;
  chain: OpenedChain;
  clock: Clock;
  flushMs: number;
  maxPending: number;
  health: TrailHealth;
  onDropped(): void;
}

interface Pending {
  entry: AuditEntry;
  time: string;
  waiter?: { resolve(): void; reject(err: Error): void };
}

const MAX_BATCH = 4_096;
const RETRY_MS = 1_000;

/**
 * Records are sealed in order and appended in batches (group commit); one a caller waits for starts an append at once,
 * others wait at most `flushMs`. A failed batch stays queued and is retried every RETRY_MS; until an append succeeds the
 * trail is not writable. The first records after an outage follow a `trail` record counting the dropped.
 */
export class AuditTrail {
  readonly chain: string;
  readonly store: AuditStore;
  private head: ChainHead | null;
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private down = false;
  private dropped = 0;
  private closed = false;

  constructor(private readonly options: AuditTrailOptions) {
    this.chain = options.chain.chain;
    this.store = options.store;
    this.head = options.chain.head;
  }

  get writable(): boolean {
    return !this.down;
  }

  /** With `durable`, resolves once stored and rejects with AuditUnavailableError when the store fails (the record stays queued). */
  record(entry: AuditEntry, durable: boolean): Promise<void> | undefined {
    const pending: Pending = { entry, time: new Date(this.options.clock.now()).toISOString() };
    if (this.queue.length >= this.options.maxPending) this.drop();
    this.queue.push(pending);
    if (!durable) {
      this.schedule(this.down ? RETRY_MS : this.options.flushMs);
      return undefined;
    }
    if (this.down) return Promise.reject(new AuditUnavailableError());
    const stored = new Promise<void>((resolve, reject) => (pending.waiter = { resolve, reject }));
    this.kick();
    return stored;
  }

  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length > 0 || this.down) this.kick();
    await this.flushing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    if (!this.down) await this.flush();
    await this.options.store.close();
  }

  private drop(): void {
    const oldest = this.queue.shift()!;
    oldest.waiter?.reject(new AuditUnavailableError());
    this.dropped++;
    this.options.onDropped();
  }

  private schedule(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, ms);
    this.timer.unref();
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      // Let the records of calls that finish in the same turn join this append.
      await null;
      while (this.queue.length > 0 || this.down) {
        const batch = this.queue.splice(0, MAX_BATCH);
        const resumed: Pending[] = this.down
          ? [{ entry: { kind: 'trail', event: 'resumed', dropped: this.dropped }, time: new Date(this.options.clock.now()).toISOString() }]
          : [];
        const sealed = this.sealAll([...resumed, ...batch]);
        try {
          // Flushed when a caller waits for it; records of read-only calls are left to the OS (docs/audit.md, Durability).
          const durable = batch.some((pending) => pending.waiter !== undefined);
          await this.options.store.append(sealed.lines, sealed.first, durable);
        } catch (err) {
          this.failed(batch, err);
          return;
        }
        this.head = sealed.head;
        if (this.down) {
          this.down = false;
          this.dropped = 0;
          this.options.health.ok();
        }
        for (const pending of batch) pending.waiter?.resolve();
      }
    } finally {
      // At once, not a turn later: a caller answered above may queue its next record, which must start an append.
      this.flushing = undefined;
    }
  }

  private sealAll(batch: readonly Pending[]): { lines: string[]; first: number; head: ChainHead } {
    let seq = this.head?.seq ?? 0;
    let prev = this.head?.hash ?? GENESIS;
    const first = seq + 1;
    const lines = batch.map(({ entry, time }) => {
      seq++;
      const { line, hash } = seal(entry, { seq, time, replica: this.chain, prev });
      prev = hash;
      return line;
    });
    return { lines, first, head: { seq, hash: prev } };
  }

  private failed(batch: Pending[], err: unknown): void {
    this.queue.unshift(...batch);
    const error = new AuditUnavailableError(err);
    for (const pending of this.queue) {
      pending.waiter?.reject(error);
      delete pending.waiter;
    }
    while (this.queue.length > this.options.maxPending) this.drop();
    this.down = true;
    this.options.health.failed(err);
    this.schedule(RETRY_MS);
  }
}
