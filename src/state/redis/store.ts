import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainableCommander } from 'ioredis';
import { byCreation } from '../approval-records.js';
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
import { admitBatch, settleBatch, type BatchContext } from './batch.js';
import { hashOf, toApprovalRecord } from './codec.js';
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

export type RedisStateStoreOptions = RedisConnectionOptions & {
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

  async listApprovals(tenant: string | null, now: number): Promise<ApprovalRecord[]> {
    const members = await this.connection.run(() => this.client.zrangebyscore(this.keys.approvalIndex(tenant), `(${now}`, '+inf'));
    if (members.length === 0) return [];
    const hashes = await this.readEach<Record<string, string>>(members, (pipeline, key) => pipeline.hgetall(key));
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

  /**
   * One read per key: a pipeline per slot group (a Cluster pipeline must stay
   * within one slot's node), all sent at once; on a single node, one pipeline.
   */
  private async readEach<T>(keys: string[], read: (pipeline: ChainableCommander, key: string) => unknown): Promise<T[]> {
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
        for (const i of at) read(pipeline, keys[i] as string);
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
