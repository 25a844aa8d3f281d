import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from './clock.js';
import { OnceRecords, type RecordKind } from './once-records.js';
import type {
  Admission,
  AdmitRequest,
  ApprovalRecord,
  CallRef,
  CircuitState,
  CircuitStatus,
  LockMeta,
  RequestClaim,
  SettleRequest,
  StateStore,
  StoredResult,
} from './state-store.js';

/**
 * Rate-limit tokens are counted in 1/60000ths so that refilling `perMinute`
 * tokens per 60 000 ms adds exactly `perMinute` units per ms: integer
 * arithmetic, exact boundaries, the same numbers as the Redis script.
 */
const TOKEN = 60_000;
/** An idle bucket is full again after a minute, which is the same as having none. */
const BUCKET_IDLE_MS = 60_000;
/**
 * What a caller stopped by a half-open breaker whose probe is still running is
 * told to wait: the probe usually settles within a tool timeout, so a short
 * retry learns the outcome sooner than the remaining probe lease would say.
 */
const HALF_OPEN_RETRY_MS = 1000;

interface Breaker {
  state: CircuitState;
  failures: number;
  /** When an open breaker lets its probe through. */
  reopensAt: number;
  /** The probe slot of a half-open breaker is taken until then; a lease, so a crashed probe cannot wedge it. */
  probeUntil: number;
}

type Waiter = (result: StoredResult | null) => void;

export interface MemoryStateStoreOptions {
  /** Used where the interface passes no `now`: request claims, lease checks while waiting, sweeping. */
  clock?: Clock;
  /** How often expired entries are dropped; they are also dropped whenever they are read. */
  sweepIntervalMs?: number;
  /** Cap on the bytes of call-id and Idempotency-Key records together (config `state.memory_max_bytes`); none when absent. */
  maxBytes?: number;
  /** Told of each record evicted to keep within `maxBytes`. */
  onEvict?: (kind: RecordKind) => void;
}

const id = (...parts: string[]): string => JSON.stringify(parts);
const clone = <T>(value: T): T => structuredClone(value);
/** Kinds apart by their first element, so a call key never equals a request key. */
const callKeyOf = (ref: CallRef): string => id('call', ref.tenant, ref.sessionId, ref.callId);
const requestKeyOf = (tenant: string, key: string): string => id('request', tenant, key);

/**
 * State for a single replica. Same semantics as the Redis store, pinned by the
 * shared contract suite; waiters are woken in-process instead of polling.
 */
export class MemoryStateStore implements StateStore {
  private readonly clock: Clock;
  private readonly records: OnceRecords;
  private readonly approvals = new Map<string, ApprovalRecord>();
  private readonly approvalKeys = new Map<string, string>();
  private readonly locks = new Map<string, { meta: LockMeta; expiresAt: number }>();
  private readonly breakers = new Map<string, Breaker>();
  private readonly buckets = new Map<string, { level: number; at: number; expiresAt: number }>();
  private readonly hits = new Map<string, { windowStart: number; count: number; expiresAt: number }>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryStateStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.records = new OnceRecords({ maxBytes: options.maxBytes ?? Infinity, ...(options.onEvict && { onEvict: options.onEvict }) });
    this.sweeper = setInterval(() => this.sweep(this.clock.now()), options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  async admit(requests: AdmitRequest[], now: number): Promise<Admission[]> {
    return requests.map((request) => this.admitOne(request, now));
  }

  private admitOne(r: AdmitRequest, now: number): Admission {
    const callKey = callKeyOf(r);
    if (r.replay) {
      const record = this.records.get(callKey, now);
      if (record) {
        if (record.fingerprint !== r.replay.fingerprint) return { outcome: 'mismatch' };
        return record.result ? { outcome: 'replayed', result: record.result } : { outcome: 'in_flight' };
      }
    }

    let approvalKey: string | undefined;
    if (r.approval) {
      approvalKey = id(r.tenant, r.sessionId, r.tool, r.approval.argsHash);
      const found = this.liveApproval(approvalKey, now);
      if (!found) {
        const record: ApprovalRecord = {
          id: `apr_${randomBytes(16).toString('base64url')}`,
          tenant: r.tenant,
          session_id: r.sessionId,
          tool: r.approval.summary.tool,
          arguments: clone(r.approval.summary.arguments),
          status: 'pending',
          created_at: now,
          expires_at: now + r.approval.ttlMs,
        };
        this.approvals.set(approvalKey, record);
        this.approvalKeys.set(record.id, approvalKey);
        return { outcome: 'approval_pending', approvalId: record.id };
      }
      if (found.status === 'pending') return { outcome: 'approval_pending', approvalId: found.id };
      if (found.status === 'denied') {
        return found.reason === undefined
          ? { outcome: 'approval_denied', approvalId: found.id }
          : { outcome: 'approval_denied', approvalId: found.id, reason: found.reason };
      }
    }

    const lock = r.lockPath === undefined ? null : (this.live(this.locks, id(r.tenant, r.sessionId, r.lockPath), now)?.meta ?? null);

    const breaker = this.breakers.get(r.breaker.scope);
    let probe = false;
    if (breaker?.state === 'open') {
      if (now < breaker.reopensAt) return { outcome: 'circuit_open', retryAfterMs: breaker.reopensAt - now };
      probe = true;
    } else if (breaker?.state === 'half_open') {
      if (breaker.probeUntil > now) {
        return { outcome: 'circuit_open', retryAfterMs: Math.min(breaker.probeUntil - now, HALF_OPEN_RETRY_MS) };
      }
      probe = true;
    }

    let bucketKey: string | undefined;
    let level = 0;
    if (r.rateLimit) {
      const { perMinute } = r.rateLimit;
      bucketKey = id(r.rateLimit.subject, r.tool);
      const bucket = this.live(this.buckets, bucketKey, now);
      const capacity = perMinute * TOKEN;
      level = bucket ? Math.min(capacity, bucket.level + Math.max(0, now - bucket.at) * perMinute) : capacity;
      if (level < TOKEN) return { outcome: 'rate_limited', retryAfterMs: Math.ceil((TOKEN - level) / perMinute) };
    }

    if (r.replay) this.records.start('call', callKey, r.replay.fingerprint, now + r.replay.leaseMs);
    if (approvalKey !== undefined) this.dropApproval(approvalKey);
    if (probe && breaker) {
      // A lease of one recovery period: a probe that never reports counts as a failed one.
      breaker.state = 'half_open';
      breaker.probeUntil = now + r.breaker.recoveryMs;
    }
    if (bucketKey !== undefined) this.buckets.set(bucketKey, { level: level - TOKEN, at: now, expiresAt: now + BUCKET_IDLE_MS });
    return { outcome: 'admitted', lock: lock && clone(lock), probe };
  }

  async settle(requests: SettleRequest[], now: number): Promise<void> {
    for (const r of requests) {
      this.recordBreaker(r.breaker, now);
      if (r.lock) {
        this.locks.set(id(r.tenant, r.sessionId, r.lock.path), { meta: clone(r.lock.meta), expiresAt: now + r.lock.ttlMs });
      }
      if (r.replay) this.complete(callKeyOf(r), r.replay.result, now + r.replay.ttlMs);
    }
  }

  private recordBreaker(b: SettleRequest['breaker'], now: number): void {
    const current = this.breakers.get(b.scope);
    // A call admitted before the breaker opened, reporting late: only the probe moves an open breaker.
    if (current && current.state !== 'closed' && !b.probe) return;
    if (b.outcome === 'success') {
      this.breakers.delete(b.scope);
    } else if (b.outcome === 'failure') {
      const next: Breaker = current ?? { state: 'closed', failures: 0, reopensAt: 0, probeUntil: 0 };
      next.failures += 1;
      if (b.probe || next.failures >= b.failureThreshold) {
        next.state = 'open';
        next.reopensAt = now + b.recoveryMs;
        next.probeUntil = 0;
      }
      this.breakers.set(b.scope, next);
    } else if (b.probe && current) {
      current.probeUntil = 0;
    }
  }

  async awaitResult(ref: CallRef, timeoutMs: number): Promise<StoredResult | null> {
    return this.awaitOnce(callKeyOf(ref), timeoutMs);
  }

  async releaseCall(ref: CallRef): Promise<void> {
    this.release(callKeyOf(ref));
  }

  async claimRequest(tenant: string, key: string, fingerprint: string, leaseMs: number): Promise<RequestClaim> {
    const now = this.clock.now();
    const requestKey = requestKeyOf(tenant, key);
    const record = this.records.get(requestKey, now);
    if (record) {
      if (record.fingerprint !== fingerprint) return { outcome: 'mismatch' };
      return record.result ? { outcome: 'done', response: record.result } : { outcome: 'in_flight' };
    }
    this.records.start('request', requestKey, fingerprint, now + leaseMs);
    return { outcome: 'claimed' };
  }

  async completeRequest(tenant: string, key: string, response: StoredResult, ttlMs: number): Promise<void> {
    this.complete(requestKeyOf(tenant, key), response, this.clock.now() + ttlMs);
  }

  async releaseRequest(tenant: string, key: string): Promise<void> {
    this.release(requestKeyOf(tenant, key));
  }

  async awaitRequest(tenant: string, key: string, timeoutMs: number): Promise<StoredResult | null> {
    return this.awaitOnce(requestKeyOf(tenant, key), timeoutMs);
  }

  /** Waiters are woken with the result even when the cap evicts its record at once. */
  private complete(key: string, result: StoredResult, expiresAt: number): void {
    if (this.records.complete(key, result, expiresAt)) this.wake(key, result);
  }

  private release(key: string): void {
    if (this.records.release(key)) this.wake(key, null);
  }

  /**
   * In one process a runner cannot crash without taking its waiters along, so
   * a lease that lapses while waiting needs no timer of its own: the runner
   * settles or releases (waking the waiter), or the timeout ends the wait.
   */
  private awaitOnce(key: string, timeoutMs: number): Promise<StoredResult | null> {
    const record = this.records.get(key, this.clock.now());
    if (!record) return Promise.resolve(null);
    if (record.result) return Promise.resolve(record.result);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(key) ?? new Set<Waiter>();
      this.waiters.set(key, waiters);
      const waiter: Waiter = (result) => {
        clearTimeout(timer);
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
        resolve(result && clone(result));
      };
      const timer = setTimeout(() => waiter(null), timeoutMs);
      waiters.add(waiter);
    });
  }

  private wake(key: string, result: StoredResult | null): void {
    for (const waiter of [...(this.waiters.get(key) ?? [])]) waiter(result);
  }

  async circuits(scopes: string[], now: number): Promise<CircuitStatus[]> {
    return scopes.map((scope) => {
      const b = this.breakers.get(scope);
      if (!b) return { scope, state: 'closed', failures: 0, reopens_at: null };
      if (b.state === 'open' && now >= b.reopensAt) return { scope, state: 'half_open', failures: b.failures, reopens_at: null };
      return { scope, state: b.state, failures: b.failures, reopens_at: b.state === 'open' ? b.reopensAt : null };
    });
  }

  async resetCircuit(scope: string): Promise<void> {
    this.breakers.delete(scope);
  }

  async listApprovals(tenant: string | null, now: number): Promise<ApprovalRecord[]> {
    const found: ApprovalRecord[] = [];
    for (const [key, approval] of this.approvals) {
      if (approval.expires_at <= now) this.dropApproval(key);
      else if (tenant === null || approval.tenant === tenant) found.push(clone(approval));
    }
    return found.sort(byCreation);
  }

  async decideApproval(
    approvalId: string,
    tenant: string | null,
    decision: 'approved' | 'denied',
    reason: string | undefined,
    now: number,
  ): Promise<ApprovalRecord | null> {
    const key = this.approvalKeys.get(approvalId);
    const record = key === undefined ? undefined : this.liveApproval(key, now);
    if (!record || record.status !== 'pending' || (tenant !== null && record.tenant !== tenant)) return null;
    record.status = decision;
    if (reason !== undefined) record.reason = reason;
    return clone(record);
  }

  async hit(
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
    cost = 1,
  ): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const windowStart = now - (now % windowMs);
    const current = this.hits.get(subject);
    const counter =
      current && current.windowStart === windowStart ? current : { windowStart, count: 0, expiresAt: windowStart + windowMs };
    if (cost > 0) {
      counter.count += cost;
      this.hits.set(subject, counter);
    }
    const allowed = counter.count <= limit;
    return { allowed, retryAfterMs: allowed ? 0 : windowStart + windowMs - now };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const key of [...this.waiters.keys()]) this.wake(key, null);
  }

  private live<V extends { expiresAt: number }>(map: Map<string, V>, key: string, now: number): V | undefined {
    const value = map.get(key);
    if (value && value.expiresAt <= now) {
      map.delete(key);
      return undefined;
    }
    return value;
  }

  private liveApproval(key: string, now: number): ApprovalRecord | undefined {
    const approval = this.approvals.get(key);
    if (approval && approval.expires_at <= now) {
      this.dropApproval(key);
      return undefined;
    }
    return approval;
  }

  private dropApproval(key: string): void {
    const approval = this.approvals.get(key);
    if (!approval) return;
    this.approvals.delete(key);
    this.approvalKeys.delete(approval.id);
  }

  private sweep(now: number): void {
    this.records.sweep(now);
    for (const map of [this.locks, this.buckets, this.hits] as Map<string, { expiresAt: number }>[]) {
      for (const [key, value] of map) if (value.expiresAt <= now) map.delete(key);
    }
    for (const [key, approval] of this.approvals) if (approval.expires_at <= now) this.dropApproval(key);
  }
}

function byCreation(a: ApprovalRecord, b: ApprovalRecord): number {
  return a.created_at - b.created_at || a.id.localeCompare(b.id);
}

export function createMemoryStateStore(options?: MemoryStateStoreOptions): MemoryStateStore {
  return new MemoryStateStore(options);
}
