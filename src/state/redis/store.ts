import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { byCreation, newApprovalId } from '../approval-records.js';
import { circuitView } from '../circuit-view.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { windowStart, windowVerdict } from '../rate-window.js';
import type {
  Admission,
  AdmitRequest,
  ApprovalRecord,
  CallRef,
  CircuitStatus,
  RequestClaim,
  SettleRequest,
  StateStore,
  StoredResult,
} from '../state-store.js';
import { breakerTtl, hashOf, KeyList, toAdmission, toApprovalRecord, type AdmitReply } from './codec.js';
import { RedisConnection, type RedisConnectionOptions } from './connection.js';
import { RedisKeys } from './keys.js';
import { luaSources, SCRIPTS, type ScriptName } from './scripts.js';

type ScriptCommand = (numKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;
type ScriptedRedis = Redis & Record<`toolgate_${ScriptName}`, ScriptCommand>;

/** Polling a running call's record: quick at first (most waits are short), then gentle on Redis. */
const POLL_FIRST_MS = 5;
const POLL_MAX_MS = 100;

export type RedisStateStoreOptions = RedisConnectionOptions & {
  /** Hash tag of every key; see keys.ts. Default `toolgate`. */
  keyPrefix?: string;
  /** Used where the interface passes no `now`: request claims and lease checks while waiting. */
  clock?: Clock;
};

/**
 * State shared by replicas. Every decision is one Lua script over keys of one
 * slot (see keys.ts), so admit and settle cost one round trip per batch
 * whatever its size, and concurrent replicas cannot both take a probe slot,
 * a lease or a token.
 */
export class RedisStateStore implements StateStore {
  private readonly client: ScriptedRedis;
  private readonly connection: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly clock: Clock;

  constructor(options: RedisStateStoreOptions) {
    this.keys = new RedisKeys(options.keyPrefix ?? 'toolgate');
    this.clock = options.clock ?? systemClock;
    this.connection = new RedisConnection(options);
    const client = this.connection.client;
    const sources = luaSources();
    for (const name of SCRIPTS) client.defineCommand(`toolgate_${name}`, { lua: sources[name] });
    this.client = client as ScriptedRedis;
  }

  async admit(requests: AdmitRequest[], now: number): Promise<Admission[]> {
    if (requests.length === 0) return [];
    const keys = new KeyList();
    const specs = requests.map((r) => ({
      replay: r.replay && { k: keys.add(this.keys.call(r)), fp: r.replay.fingerprint, lease: r.replay.leaseMs },
      approval: r.approval && {
        ...this.newApproval(keys, r),
        k: keys.add(this.keys.approval(r.tenant, r.sessionId, r.tool, r.approval.argsHash)),
        ttl: r.approval.ttlMs,
        tenant: r.tenant,
        session: r.sessionId,
        tool: r.approval.summary.tool,
        args: JSON.stringify(r.approval.summary.arguments ?? null),
      },
      lock: r.lockPath === undefined ? undefined : keys.add(this.keys.lock(r.tenant, r.sessionId, r.lockPath)),
      breaker: { k: keys.add(this.keys.breaker(r.breaker.scope)), recovery: r.breaker.recoveryMs, ttl: breakerTtl(r.breaker) },
      rate: r.rateLimit && { k: keys.add(this.keys.rate(r.rateLimit.subject, r.tool)), per_minute: r.rateLimit.perMinute },
    }));
    const replies = (await this.script('admit', keys.keys, [now, JSON.stringify(specs)])) as string[];
    return replies.map((reply) => toAdmission(JSON.parse(reply) as AdmitReply));
  }

  private newApproval(keys: KeyList, r: AdmitRequest): { id: string; ptr: number; tidx: number; gidx: number } {
    const id = newApprovalId();
    return {
      id,
      ptr: keys.add(this.keys.approvalId(id)),
      tidx: keys.add(this.keys.approvalIndex(r.tenant)),
      gidx: keys.add(this.keys.approvalIndex(null)),
    };
  }

  async settle(requests: SettleRequest[], now: number): Promise<void> {
    if (requests.length === 0) return;
    const keys = new KeyList();
    const specs = requests.map((r) => ({
      breaker: {
        k: keys.add(this.keys.breaker(r.breaker.scope)),
        outcome: r.breaker.outcome,
        probe: r.breaker.probe,
        threshold: r.breaker.failureThreshold,
        recovery: r.breaker.recoveryMs,
        ttl: breakerTtl(r.breaker),
      },
      lock: r.lock && {
        k: keys.add(this.keys.lock(r.tenant, r.sessionId, r.lock.path)),
        meta: JSON.stringify(r.lock.meta),
        ttl: r.lock.ttlMs,
      },
      replay: r.replay && { k: keys.add(this.keys.call(r)), res: JSON.stringify(r.replay.result), ttl: r.replay.ttlMs },
    }));
    await this.script('settle', keys.keys, [now, JSON.stringify(specs)]);
  }

  awaitResult(ref: CallRef, timeoutMs: number): Promise<StoredResult | null> {
    return this.awaitOnce(this.keys.call(ref), timeoutMs);
  }

  async claimRequest(tenant: string, key: string, fingerprint: string, leaseMs: number): Promise<RequestClaim> {
    const now = this.clock.now();
    const [outcome, response] = (await this.script('claim', [this.keys.request(tenant, key)], [now, fingerprint, leaseMs])) as [
      RequestClaim['outcome'],
      string?,
    ];
    return outcome === 'done' ? { outcome, response: JSON.parse(response ?? 'null') as StoredResult } : { outcome };
  }

  async completeRequest(tenant: string, key: string, response: StoredResult, ttlMs: number): Promise<void> {
    await this.script('complete', [this.keys.request(tenant, key)], [this.clock.now(), JSON.stringify(response), ttlMs]);
  }

  async releaseRequest(tenant: string, key: string): Promise<void> {
    await this.script('release', [this.keys.request(tenant, key)], []);
  }

  awaitRequest(tenant: string, key: string, timeoutMs: number): Promise<StoredResult | null> {
    return this.awaitOnce(this.keys.request(tenant, key), timeoutMs);
  }

  /**
   * Polls rather than subscribing: no second connection per store, nothing to
   * resubscribe after a reconnect, and a lapsed lease (the runner crashed) is
   * seen on the next poll.
   */
  private async awaitOnce(key: string, timeoutMs: number): Promise<StoredResult | null> {
    const deadline = Date.now() + timeoutMs;
    for (let delay = POLL_FIRST_MS; ; delay = Math.min(delay * 2, POLL_MAX_MS)) {
      const [result, expires] = await this.connection.run(() => this.client.hmget(key, 'res', 'exp'));
      if (expires == null || Number(expires) <= this.clock.now()) return null;
      if (result != null) return JSON.parse(result) as StoredResult;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await sleep(Math.min(delay, left));
    }
  }

  async circuits(scopes: string[], now: number): Promise<CircuitStatus[]> {
    if (scopes.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const scope of scopes) pipeline.hmget(this.keys.breaker(scope), 'state', 'failures', 'reopens_at');
    const replies = (await this.connection.exec(pipeline)) as (string | null)[][];
    return scopes.map((scope, i) => {
      const [state, failures, reopensAt] = replies[i] ?? [];
      const known = state === 'open' || state === 'half_open' ? state : 'closed';
      return circuitView(scope, known, Number(failures ?? 0), Number(reopensAt), now);
    });
  }

  async resetCircuit(scope: string): Promise<void> {
    await this.connection.run(() => this.client.del(this.keys.breaker(scope)));
  }

  async listApprovals(tenant: string | null, now: number): Promise<ApprovalRecord[]> {
    const members = await this.connection.run(() => this.client.zrangebyscore(this.keys.approvalIndex(tenant), `(${now}`, '+inf'));
    if (members.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const member of members) pipeline.hgetall(member);
    const hashes = (await this.connection.exec(pipeline)) as Record<string, string>[];
    return hashes
      .filter((hash) => hash.id !== undefined && Number(hash.expires_at) > now)
      .map(toApprovalRecord)
      .sort(byCreation);
  }

  /** Two round trips: the record's key is found by id first, so the script declares every key it touches. */
  async decideApproval(
    id: string,
    tenant: string | null,
    decision: 'approved' | 'denied',
    reason: string | undefined,
    now: number,
  ): Promise<ApprovalRecord | null> {
    const recordKey = await this.connection.run(() => this.client.get(this.keys.approvalId(id)));
    if (recordKey === null) return null;
    const args = [id, now, decision, tenant === null ? '1' : '0', tenant ?? '', ...(reason === undefined ? [] : [reason])];
    const flat = (await this.script('decide', [recordKey], args)) as string[] | null;
    if (flat === null) return null;
    return toApprovalRecord(hashOf(flat));
  }

  async hit(
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
    cost = 1,
  ): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const start = windowStart(now, windowMs);
    const count = Number(await this.script('hit', [this.keys.hit(subject, start)], [cost, windowMs]));
    return windowVerdict(count, limit, start, windowMs, now);
  }

  async ping(): Promise<void> {
    await this.connection.run(() => this.client.ping());
  }

  /** Closes the connection the store opened; a `client` passed in stays its owner's. */
  async close(): Promise<void> {
    await this.connection.close();
  }

  private script(name: ScriptName, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.connection.run(() => this.client[`toolgate_${name}`](keys.length, ...keys, ...args));
  }
}

export function createRedisStateStore(options: RedisStateStoreOptions): RedisStateStore {
  return new RedisStateStore(options);
}
