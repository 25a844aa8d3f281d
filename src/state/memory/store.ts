import type { ApprovalRecord } from '../../protocol/approval.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import type { Admission, AdmitRequest, CallRef, SettleRequest, StoredResult } from '../admission.js';
import type { ApprovalDecision, ApprovalQuery, DecideOutcome } from '../approvals.js';
import type { CircuitStatus } from '../circuits.js';
import type { FileLockAnswer, FileLockRequest } from '../file-locks.js';
import type { RequestClaim } from '../request-keys.js';
import type { StateStore } from '../state-store.js';
import { MemoryApprovals } from './approvals.js';
import { MemoryBreakers } from './breaker.js';
import { MemoryFixedWindows } from './fixed-window.js';
import { approvalKey, bucketKey, callKey, fileLockKey, lockKey, requestKey } from './keys.js';
import { MemoryFileLocks } from './file-locks.js';
import { MemoryGrants } from './grants.js';
import { MemoryLocks } from './locks.js';
import { OnceRecords, type RecordKind } from './once-records.js';
import { MemoryTokenBuckets } from './token-bucket.js';
import { Waiters } from './waiters.js';

interface MemoryStateStoreOptions {
  clock?: Clock;
  sweepIntervalMs?: number;
  /** Cap on the bytes of call-id and Idempotency-Key records together; none when absent. */
  maxBytes?: number;
  onEvict?: (kind: RecordKind) => void;
}

/** State for a single replica, composed of one file per transition; waiters are woken in-process. */
export class MemoryStateStore implements StateStore {
  private readonly clock: Clock;
  private readonly records: OnceRecords;
  private readonly waiters = new Waiters();
  private readonly approvals = new MemoryApprovals();
  private readonly locks = new MemoryLocks();
  private readonly fileLocks = new MemoryFileLocks();
  private readonly breakers = new MemoryBreakers();
  private readonly buckets = new MemoryTokenBuckets();
  private readonly windows = new MemoryFixedWindows();
  private readonly sweeper: NodeJS.Timeout;
  readonly grants: MemoryGrants;

  constructor(options: MemoryStateStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.grants = new MemoryGrants(this.clock);
    this.records = new OnceRecords({ maxBytes: options.maxBytes ?? Infinity, ...(options.onEvict && { onEvict: options.onEvict }) });
    this.sweeper = setInterval(() => this.sweep(this.clock.now()), options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  async admit(requests: AdmitRequest[], now: number): Promise<Admission[]> {
    return requests.map((request) => this.admitOne(request, now));
  }

  /** Every check first, then, only for an admitted call, every take: a stopped call takes nothing. */
  private admitOne(r: AdmitRequest, now: number): Admission {
    const call = r.replay ? callKey(r) : '';
    if (r.replay) {
      const answer = this.records.answer(call, r.replay.fingerprint, now);
      if (answer) return answer.outcome === 'done' ? { outcome: 'replayed', result: answer.result } : answer;
    }

    let approval: string | undefined;
    if (r.approval) {
      approval = approvalKey(r.tenant, r.sessionId, r.tool, r.approval.argsHash, r.user);
      const answer = this.approvals.check(approval, r, r.approval, now);
      if (answer !== 'approved') return answer;
    }

    const lock = r.lockPath === undefined ? null : this.locks.get(lockKey(r.tenant, r.sessionId, r.lockPath, r.user), now);

    const probe = this.breakers.check(r.breaker.scope, now);
    if (typeof probe !== 'boolean') return probe;

    let bucket: string | undefined;
    let level = 0;
    if (r.rateLimit) {
      bucket = bucketKey(r.rateLimit.subject, r.tool);
      const answer = this.buckets.check(bucket, r.rateLimit.perMinute, now);
      if (typeof answer !== 'number') return answer;
      level = answer;
    }

    if (r.replay) this.records.start('call', call, r.replay.fingerprint, now + r.replay.leaseMs);
    const approved = approval === undefined ? undefined : this.approvals.approved(approval);
    if (approval !== undefined) this.approvals.consume(approval);
    if (probe) this.breakers.takeProbe(r.breaker.scope, r.breaker.recoveryMs, now);
    if (bucket !== undefined) this.buckets.take(bucket, level, now);
    return approved ? { outcome: 'admitted', lock, probe, approval: approved } : { outcome: 'admitted', lock, probe };
  }

  async settle(requests: SettleRequest[], now: number): Promise<void> {
    for (const r of requests) {
      this.breakers.record(r.breaker, now);
      if (r.lock) this.locks.set(lockKey(r.tenant, r.sessionId, r.lock.path, r.user), r.lock.meta, now + r.lock.ttlMs);
      if (r.replay) this.complete(callKey(r), r.replay.result, now + r.replay.ttlMs);
    }
  }

  async awaitResult(ref: CallRef, timeoutMs: number): Promise<StoredResult | null> {
    return this.awaitOnce(callKey(ref), timeoutMs);
  }

  async claimRequest(tenant: string, key: string, fingerprint: string, leaseMs: number): Promise<RequestClaim> {
    const now = this.clock.now();
    const request = requestKey(tenant, key);
    const answer = this.records.answer(request, fingerprint, now);
    if (answer) return answer.outcome === 'done' ? { outcome: 'done', response: answer.result } : answer;
    this.records.start('request', request, fingerprint, now + leaseMs);
    return { outcome: 'claimed' };
  }

  async completeRequest(tenant: string, key: string, response: StoredResult, ttlMs: number): Promise<void> {
    this.complete(requestKey(tenant, key), response, this.clock.now() + ttlMs);
  }

  async releaseRequest(tenant: string, key: string): Promise<void> {
    this.release(requestKey(tenant, key));
  }

  async awaitRequest(tenant: string, key: string, timeoutMs: number): Promise<StoredResult | null> {
    return this.awaitOnce(requestKey(tenant, key), timeoutMs);
  }

  /** Waiters are woken with the result even when the cap evicts its record at once. */
  private complete(key: string, result: StoredResult, expiresAt: number): void {
    if (this.records.complete(key, result, expiresAt)) this.waiters.wake(key, result);
  }

  private release(key: string): void {
    if (this.records.release(key)) this.waiters.wake(key, null);
  }

  private awaitOnce(key: string, timeoutMs: number): Promise<StoredResult | null> {
    const record = this.records.get(key, this.clock.now());
    if (!record) return Promise.resolve(null);
    if (record.result) return Promise.resolve(record.result);
    return this.waiters.wait(key, timeoutMs);
  }

  async lockFile(request: FileLockRequest, now: number): Promise<FileLockAnswer> {
    return this.fileLocks.lock(fileLockKey(request.tenant, request.path), request, now);
  }

  async unlockFile(tenant: string, path: string, holder: string): Promise<void> {
    this.fileLocks.unlock(fileLockKey(tenant, path), holder, this.clock.now());
  }

  async circuits(scopes: string[], now: number): Promise<CircuitStatus[]> {
    return scopes.map((scope) => this.breakers.view(scope, now));
  }

  async resetCircuit(scope: string): Promise<void> {
    this.breakers.reset(scope);
  }

  async listApprovals(tenant: string | null, query: ApprovalQuery, now: number): Promise<ApprovalRecord[]> {
    return this.approvals.list(tenant, query, now);
  }

  async getApproval(id: string, tenant: string | null, now: number): Promise<ApprovalRecord | null> {
    return this.approvals.get(id, tenant, now);
  }

  async decideApproval(id: string, tenant: string | null, decision: ApprovalDecision, now: number): Promise<DecideOutcome | null> {
    return this.approvals.decide(id, tenant, decision, now);
  }

  async countPendingApprovals(now: number): Promise<number> {
    return this.approvals.countPending(now);
  }

  async hit(subject: string, limit: number, windowMs: number, now: number, cost = 1): Promise<{ allowed: boolean; retryAfterMs: number }> {
    return this.windows.hit(subject, limit, windowMs, now, cost);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.waiters.wakeAll();
  }

  private sweep(now: number): void {
    this.records.sweep(now);
    this.locks.sweep(now);
    this.fileLocks.sweep(now);
    this.buckets.sweep(now);
    this.windows.sweep(now);
    this.approvals.sweep(now);
    this.grants.sweep(now);
  }
}

export function createMemoryStateStore(options?: MemoryStateStoreOptions): MemoryStateStore {
  return new MemoryStateStore(options);
}
