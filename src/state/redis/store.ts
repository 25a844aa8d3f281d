import { setTimeout as sleep } from 'node:timers/promises';
import { Redis, type ChainableCommander } from 'ioredis';
import { byCreation, newApprovalId } from '../approval-records.js';
import { circuitView } from '../circuit-view.js';
import { systemClock, type Clock } from '../clock.js';
import { windowStart, windowVerdict } from '../rate-window.js';
import {
  StateUnavailableError,
  type Admission,
  type AdmitRequest,
  type ApprovalRecord,
  type ApprovalStatus,
  type CallRef,
  type CircuitStatus,
  type RequestClaim,
  type SettleRequest,
  type StateStore,
  type StoredResult,
} from '../state-store.js';
import { RedisKeys } from './keys.js';
import { luaSources, SCRIPTS, type ScriptName } from './scripts.js';

type ScriptCommand = (numKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;
type ScriptedRedis = Redis & Record<`toolgate_${ScriptName}`, ScriptCommand>;

/** Polling a running call's record: quick at first (most waits are short), then gentle on Redis. */
const POLL_FIRST_MS = 5;
const POLL_MAX_MS = 100;
/**
 * A breaker key outlives twice its recovery time, so an open breaker never
 * silently turns closed; failures nobody has added to for a day are forgotten.
 */
const BREAKER_MIN_TTL_MS = 86_400_000;

/** ioredis states in which a connection attempt is under way (`wait`: a lazy client not yet asked to connect). */
const CONNECTING = new Set(['wait', 'connecting', 'connect']);

type RedisConnection = { url: string; client?: never } | { client: Redis; url?: never };

export type RedisStateStoreOptions = RedisConnection & {
  /** Hash tag of every key; see keys.ts. Default `toolgate`. */
  keyPrefix?: string;
  /** Bound on opening a connection, and so on how long a call waits for one before StateUnavailableError. Default 500. */
  connectTimeoutMs?: number;
  /** Bound on one command of a connection the store opens (a given `client` keeps its own). Default 500. */
  commandTimeoutMs?: number;
  /** Used where the interface passes no `now`: request claims and lease checks while waiting. */
  clock?: Clock;
};

type AdmitReply =
  | { o: 'admitted'; lock?: string; probe: boolean }
  | { o: 'replayed'; r: string }
  | { o: 'in_flight' | 'mismatch' }
  | { o: 'approval_pending'; id: string }
  | { o: 'approval_denied'; id: string; reason?: string }
  | { o: 'circuit_open' | 'rate_limited'; retry: number };

/** Scripts name their keys by 1-based KEYS index; a key several calls share is passed once. */
class KeyList {
  readonly keys: string[] = [];
  private readonly index = new Map<string, number>();

  add(key: string): number {
    let at = this.index.get(key);
    if (at === undefined) {
      at = this.keys.push(key);
      this.index.set(key, at);
    }
    return at;
  }
}

/**
 * State shared by replicas. Every decision is one Lua script over keys of one
 * slot (see keys.ts), so admit and settle cost one round trip per batch
 * whatever its size, and concurrent replicas cannot both take a probe slot,
 * a lease or a token.
 */
export class RedisStateStore implements StateStore {
  private readonly client: ScriptedRedis;
  private readonly owned: boolean;
  private readonly keys: RedisKeys;
  private readonly clock: Clock;
  private readonly connectTimeoutMs: number;
  private lastError: unknown;
  private readyWait: Promise<boolean> | undefined;

  constructor(options: RedisStateStoreOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 500;
    this.keys = new RedisKeys(options.keyPrefix ?? 'toolgate');
    this.clock = options.clock ?? systemClock;
    this.owned = options.client === undefined;
    const client =
      options.client ??
      new Redis(options.url, {
        connectTimeout: this.connectTimeoutMs,
        commandTimeout: options.commandTimeoutMs ?? 500,
        // A command reported as failed must never run later: no queue while disconnected,
        // no resending of commands that were in flight when the connection dropped,
        // and those are failed as soon as it drops rather than after some reconnects.
        enableOfflineQueue: false,
        autoResendUnfulfilledCommands: false,
        maxRetriesPerRequest: 0,
        // Reconnect forever by itself, backing off to at most a second between attempts.
        retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
      });
    if (this.owned) client.on('error', (error: unknown) => (this.lastError = error));
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

  async releaseCall(ref: CallRef): Promise<void> {
    await this.script('release', [this.keys.call(ref)], []);
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
      const [result, expires] = await this.run(() => this.client.hmget(key, 'res', 'exp'));
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
    const replies = (await this.exec(pipeline)) as (string | null)[][];
    return scopes.map((scope, i) => {
      const [state, failures, reopensAt] = replies[i] ?? [];
      const known = state === 'open' || state === 'half_open' ? state : 'closed';
      return circuitView(scope, known, Number(failures ?? 0), Number(reopensAt), now);
    });
  }

  async resetCircuit(scope: string): Promise<void> {
    await this.run(() => this.client.del(this.keys.breaker(scope)));
  }

  async listApprovals(tenant: string | null, now: number): Promise<ApprovalRecord[]> {
    const members = await this.run(() => this.client.zrangebyscore(this.keys.approvalIndex(tenant), `(${now}`, '+inf'));
    if (members.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const member of members) pipeline.hgetall(member);
    const hashes = (await this.exec(pipeline)) as Record<string, string>[];
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
    const recordKey = await this.run(() => this.client.get(this.keys.approvalId(id)));
    if (recordKey === null) return null;
    const args = [id, now, decision, tenant === null ? '1' : '0', tenant ?? '', ...(reason === undefined ? [] : [reason])];
    const flat = (await this.script('decide', [recordKey], args)) as string[] | null;
    if (flat === null) return null;
    const hash: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
    return toApprovalRecord(hash);
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
    await this.run(() => this.client.ping());
  }

  /** Closes the connection the store opened; a `client` passed in stays its owner's. */
  async close(): Promise<void> {
    if (!this.owned) return;
    await this.client.quit().catch(() => this.client.disconnect());
  }

  private script(name: ScriptName, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.run(() => this.client[`toolgate_${name}`](keys.length, ...keys, ...args));
  }

  private async exec(pipeline: ChainableCommander): Promise<unknown[]> {
    const replies = await this.run(() => pipeline.exec());
    return (replies ?? []).map(([error, reply]) => {
      if (error) throw new StateUnavailableError(undefined, { cause: error });
      return reply;
    });
  }

  private async run<T>(operation: () => Promise<T>): Promise<T> {
    try {
      await this.connected();
      return await operation();
    } catch (error) {
      throw error instanceof StateUnavailableError ? error : new StateUnavailableError(undefined, { cause: error });
    }
  }

  /**
   * Commands are never queued while disconnected. A call made while a
   * connection attempt is under way (at start-up, or a reconnect) waits for
   * that attempt, at most the connect timeout, instead of failing needlessly;
   * between attempts it fails at once. Concurrent callers share one wait.
   */
  private async connected(): Promise<void> {
    const client = this.client;
    if (client.status === 'ready') return;
    if (!CONNECTING.has(client.status)) throw new StateUnavailableError('Redis not connected', { cause: this.lastError });
    this.readyWait ??= new Promise<boolean>((resolve) => {
      const done = (ready: boolean) => {
        clearTimeout(timer);
        client.off('ready', onReady).off('close', onClose);
        this.readyWait = undefined;
        resolve(ready);
      };
      const onReady = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(done, this.connectTimeoutMs, false);
      client.once('ready', onReady).once('close', onClose);
      if (client.status === 'wait') client.connect().catch(() => undefined);
    });
    if (!(await this.readyWait)) throw new StateUnavailableError('Redis not connected', { cause: this.lastError });
  }
}

function breakerTtl(settings: { recoveryMs: number }): number {
  return Math.max(BREAKER_MIN_TTL_MS, 2 * settings.recoveryMs);
}

function toAdmission(reply: AdmitReply): Admission {
  switch (reply.o) {
    case 'admitted':
      return { outcome: 'admitted', lock: reply.lock === undefined ? null : JSON.parse(reply.lock), probe: reply.probe };
    case 'replayed':
      return { outcome: 'replayed', result: JSON.parse(reply.r) as StoredResult };
    case 'approval_pending':
      return { outcome: 'approval_pending', approvalId: reply.id };
    case 'approval_denied':
      return reply.reason === undefined
        ? { outcome: 'approval_denied', approvalId: reply.id }
        : { outcome: 'approval_denied', approvalId: reply.id, reason: reply.reason };
    case 'circuit_open':
    case 'rate_limited':
      return { outcome: reply.o, retryAfterMs: reply.retry };
    default:
      return { outcome: reply.o };
  }
}

function toApprovalRecord(hash: Record<string, string>): ApprovalRecord {
  const record: ApprovalRecord = {
    id: hash.id ?? '',
    tenant: hash.tenant ?? '',
    session_id: hash.session_id ?? '',
    tool: hash.tool ?? '',
    arguments: JSON.parse(hash.arguments ?? 'null'),
    status: hash.status as ApprovalStatus,
    created_at: Number(hash.created_at),
    expires_at: Number(hash.expires_at),
  };
  if (hash.reason !== undefined) record.reason = hash.reason;
  return record;
}

export function createRedisStateStore(options: RedisStateStoreOptions): RedisStateStore {
  return new RedisStateStore(options);
}
