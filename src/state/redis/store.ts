import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainableCommander } from 'ioredis';
import type { ApprovalRecord } from '../../protocol/approval.js';
import { asKept, byCreation } from '../approval-records.js';
import { circuitView } from '../circuit-view.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { windowStart, windowVerdict } from '../rate-window.js';
import type {
  Admission,
  AdmitRequest,
  ApprovalDecision,
  ApprovalQuery,
  CallRef,
  CircuitStatus,
  DecideOutcome,
  RequestClaim,
  SettleRequest,
  StateStore,
  StoredResult,
} from '../state-store.js';
import { admitBatch, settleBatch, type BatchContext } from './batch.js';
import { fromKept, hashOf, toApprovalRecord } from './codec.js';
import { RedisConnection, type RedisConnectionOptions } from './connection.js';
import { RedisKeys } from './keys.js';
import type { RedisClient } from './topology.js';
import { luaSources, scriptCommand, SCRIPTS, type ScriptCommandName, type ScriptName } from './scripts.js';
import { groupOf } from './slots.js';

type ScriptCommand = (numKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;
type ScriptedRedis = RedisClient & Record<ScriptCommandName, ScriptCommand>;

/** Polling a running call's record: quick at first (most waits are short), then gentle on Redis. */
const POLL_FIRST_MS = 5;
const POLL_MAX_MS = 100;

type RedisStateStoreOptions = RedisConnectionOptions & {
  /** First part of every key's hash tag; see keys.ts. Default `toolgate`. */
  keyPrefix?: string;
  /**
   * One script per hash slot, as Redis Cluster requires (batch.ts). Default:
   * whether the client is a Cluster. On a single node every phase of a batch
   * is one script over all its slots, atomic across tenants and breakers.
   */
  sharded?: boolean;
  /** Used where the interface passes no `now`: request claims and lease checks while waiting. */
  clock?: Clock;
};

/**
 * State shared by replicas. Every decision is a Lua script over keys of one
 * slot group (see keys.ts, slots.ts), so admit and settle cost one round trip
 * per batch whatever its size (two for admit when shared breakers are in
 * another slot than the tenant's, see batch.ts), and concurrent replicas
 * cannot both take a probe slot, a lease or a token.
 */
export class RedisStateStore implements StateStore {
  private readonly client: ScriptedRedis;
  private readonly connection: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly clock: Clock;
  private readonly sharded: boolean;
  private readonly batch: BatchContext;

  constructor(options: RedisStateStoreOptions) {
    this.keys = new RedisKeys(options.keyPrefix ?? 'toolgate');
    this.clock = options.clock ?? systemClock;
    this.connection = new RedisConnection(options);
    const client = this.connection.client;
    const sources = luaSources();
    for (const name of SCRIPTS) client.defineCommand(scriptCommand(name), { lua: sources[name] });
    this.client = client as ScriptedRedis;
    this.sharded = options.sharded ?? client.isCluster;
    this.batch = { keys: this.keys, sharded: this.sharded, run: (name, keys, args) => this.script(name, keys, args) };
  }

  async admit(requests: AdmitRequest[], now: number): Promise<Admission[]> {
    if (requests.length === 0) return [];
    return admitBatch(requests, now, this.batch);
  }

  async settle(requests: SettleRequest[], now: number): Promise<void> {
    if (requests.length === 0) return;
    await settleBatch(requests, now, this.batch);
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
    const keys = scopes.map((scope) => this.keys.breaker(scope));
    const replies = await this.readEach<(string | null)[]>(keys, (pipeline, key) => pipeline.hmget(key, 'state', 'failures', 'reopens_at'));
    return scopes.map((scope, i) => {
      const [state, failures, reopensAt] = replies[i] ?? [];
      const known = state === 'open' || state === 'half_open' ? state : 'closed';
      return circuitView(scope, known, Number(failures ?? 0), Number(reopensAt), now);
    });
  }

  async resetCircuit(scope: string): Promise<void> {
    await this.connection.run(() => this.client.del(this.keys.breaker(scope)));
  }

  async listApprovals(tenant: string | null, query: ApprovalQuery, now: number): Promise<ApprovalRecord[]> {
    if (query.status === 'decided') return this.listDecided(tenant, query.limit, now);
    const index = this.keys.approvalIndex(tenant);
    const members = await this.connection.run(() => this.client.zrangebyscore(index, `(${now}`, '+inf', 'LIMIT', 0, query.limit));
    if (members.length === 0) return [];
    const hashes = await this.readEach<Record<string, string>>(members, (pipeline, key) => pipeline.hgetall(key));
    return hashes
      .filter((hash) => hash.id !== undefined && hash.status === 'pending' && Number(hash.expires_at) > now)
      .map(toApprovalRecord)
      .sort(byCreation);
  }

  /** Most recently decided first: the decided index, then each record from its tenant's history. */
  private async listDecided(tenant: string | null, limit: number, now: number): Promise<ApprovalRecord[]> {
    const index = this.keys.decidedIndex(tenant);
    const ids = await this.connection.run(() => this.client.zrevrangebyscore(index, '+inf', `(${now}`, 'LIMIT', 0, limit));
    if (ids.length === 0) return [];
    let histories: (string | null)[];
    if (tenant !== null) {
      histories = ids.map(() => this.keys.approvalHistory(tenant));
    } else {
      const targets = await this.readEach<string | null>(
        ids.map((id) => this.keys.approvalId(id)),
        (pipeline, key) => pipeline.get(key),
      );
      histories = targets.map((target) => (target === null ? null : this.keys.tenantApprovalKeys(target).history));
    }
    const found = ids.flatMap((id, i) => (histories[i] ? [{ id, history: histories[i] }] : []));
    const kept = await this.readEach<(string | null)[]>(
      found.map((f) => f.history),
      (pipeline, key, i) => pipeline.hmget(key, found[i]!.id, `ran:${found[i]!.id}`),
    );
    return kept.flatMap(([json, ran]) => {
      const record = json ? fromKept(json, now) : null;
      return record ? [asKept(record, ran != null, now)] : [];
    });
  }

  /**
   * The id pointer first, which names the request's key and so its tenant's
   * slot; then the request and its kept decision, both in that slot.
   */
  async getApproval(id: string, tenant: string | null, now: number): Promise<ApprovalRecord | null> {
    const target = await this.ownTarget(id, tenant);
    if (target === null) return null;
    const { history } = this.keys.tenantApprovalKeys(target);
    const pipeline = this.client.pipeline().hmget(history, id, `ran:${id}`).hgetall(target);
    const [[json, ran], hash] = (await this.connection.exec(pipeline)) as [(string | null)[], Record<string, string>];
    const kept = json ? fromKept(json, now) : null;
    if (kept) return asKept(kept, ran != null, now);
    if (hash.id !== id || hash.status !== 'pending' || Number(hash.expires_at) <= now) return null;
    return toApprovalRecord(hash);
  }

  /** Two round trips (three on a Cluster): the record's key is found by id first, so the script declares every key it touches. */
  async decideApproval(id: string, tenant: string | null, decision: ApprovalDecision, now: number): Promise<DecideOutcome | null> {
    const target = await this.ownTarget(id, tenant);
    if (target === null) return null;
    const own = this.keys.tenantApprovalKeys(target);
    const pending = this.keys.approvalIndex(null);
    const decided = this.keys.decidedIndex(null);
    const pointer = this.keys.approvalId(id);
    const global = !this.sharded || groupOf(pending, true) === groupOf(target, true) ? [pending, decided, pointer] : [];
    const { history } = decision;
    const args = [
      id,
      now,
      decision.status,
      decision.by,
      history.ttlMs,
      history.count,
      ...(decision.reason === undefined ? [] : [decision.reason]),
    ];
    const keys = [target, own.pending, own.decided, own.history, ...global];
    const reply = (await this.script('decide', keys, args)) as [string, string, string?] | null;
    if (reply === null) return null;
    const [outcome, json, ran] = reply;
    // A decision the history has forgotten, but the request still holds: it stands, as the request says.
    const record = fromKept(json, now) ?? toApprovalRecord(hashOf(JSON.parse(json) as string[]));
    if (outcome === 'already') return { outcome, record: asKept(record, ran === '1', now) };
    if (global.length === 0) await this.script('decided', [pending, decided, pointer], [target, id, now, history.ttlMs, history.count]);
    return { outcome: 'decided', record };
  }

  /** The key the id pointer leads to, when it is the tenant's (any tenant's for null). */
  private async ownTarget(id: string, tenant: string | null): Promise<string | null> {
    const target = await this.connection.run(() => this.client.get(this.keys.approvalId(id)));
    if (target === null) return null;
    return tenant === null || this.keys.slotOf(target) === this.keys.tenant(tenant) ? target : null;
  }

  async countPendingApprovals(now: number): Promise<number> {
    return this.connection.run(() => this.client.zcount(this.keys.approvalIndex(null), `(${now}`, '+inf'));
  }

  async hit(subject: string, limit: number, windowMs: number, now: number, cost = 1): Promise<{ allowed: boolean; retryAfterMs: number }> {
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

  /**
   * One read per key: a pipeline per slot group (a Cluster pipeline must stay
   * within one slot's node), all sent at once; on a single node, one pipeline.
   */
  private async readEach<T>(keys: string[], read: (pipeline: ChainableCommander, key: string, i: number) => unknown): Promise<T[]> {
    const groups = new Map<string, number[]>();
    keys.forEach((key, i) => {
      const group = groupOf(key, this.sharded);
      const at = groups.get(group);
      if (at === undefined) groups.set(group, [i]);
      else at.push(i);
    });
    const replies: T[] = [];
    await Promise.all(
      [...groups.values()].map(async (at) => {
        const pipeline = this.client.pipeline();
        for (const i of at) read(pipeline, keys[i] as string, i);
        const out = await this.connection.exec(pipeline);
        at.forEach((i, j) => (replies[i] = out[j] as T));
      }),
    );
    return replies;
  }

  private script(name: ScriptName, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.connection.run(() => this.client[scriptCommand(name)](keys.length, ...keys, ...args));
  }
}

export function createRedisStateStore(options: RedisStateStoreOptions): RedisStateStore {
  return new RedisStateStore(options);
}
