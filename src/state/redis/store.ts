import { setTimeout as sleep } from 'node:timers/promises';
import type { ApprovalRecord } from '../../protocol/approval.js';
import { circuitView, type CircuitStatus } from '../circuits.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { windowStart, windowVerdict } from '../hit-counter.js';
import type { Admission, AdmitRequest, CallRef, SettleRequest, StoredResult } from '../admission.js';
import type { ApprovalDecision, ApprovalQuery, DecideOutcome } from '../approvals.js';
import type { FileLockAnswer, FileLockRequest } from '../file-locks.js';
import type { RequestClaim } from '../request-keys.js';
import type { StateStore } from '../state-store.js';
import { admitBatch, settleBatch, type BatchContext } from './batch.js';
import { RedisApprovals } from './approvals.js';
import { RedisConnection, type RedisConnectionOptions } from './connection.js';
import { RedisGrants } from './grants.js';
import { RedisKeys } from './keys.js';
import type { RedisClient } from './topology.js';
import { luaSources, scriptCommand, SCRIPTS, type ScriptCommandName, type ScriptName } from './scripts.js';
import { readEach, type Reader } from './read-each.js';

type ScriptCommand = (numKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;
type ScriptedRedis = RedisClient & Record<ScriptCommandName, ScriptCommand>;

const POLL_FIRST_MS = 5;
const POLL_MAX_MS = 100;

type RedisStateStoreOptions = RedisConnectionOptions & {
  keyPrefix?: string;
  /** One script per hash slot, as a Cluster requires. Default: whether the client is a Cluster. */
  sharded?: boolean;
  clock?: Clock;
};

/** State shared by replicas: every decision a Lua script over one slot group, one round trip per batch (batch.ts). */
export class RedisStateStore implements StateStore {
  private readonly client: ScriptedRedis;
  private readonly connection: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly clock: Clock;
  private readonly sharded: boolean;
  private readonly batch: BatchContext;
  private readonly reader: Reader;
  private readonly approvals: RedisApprovals;
  readonly grants: RedisGrants;

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
    this.reader = { client, connection: this.connection, sharded: this.sharded };
    this.approvals = new RedisApprovals({ ...this.batch, ...this.reader });
    this.grants = new RedisGrants({
      client,
      connection: this.connection,
      keys: this.keys,
      run: (name, keys, args) => this.script(name, keys, args),
    });
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

  /** Polls: no second connection, nothing to resubscribe, and a lapsed lease is seen on the next poll. */
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

  async lockFile(request: FileLockRequest, now: number): Promise<FileLockAnswer> {
    const key = this.keys.fileLock(request.tenant, request.path);
    const [outcome, value] = (await this.script('file-lock', [key], [now, request.holder, request.leaseMs])) as [string, string | number];
    if (outcome === 'busy') return { outcome, retryAfterMs: Number(value) };
    return { outcome: 'granted', fence: value === '' ? [] : String(value).split('/') };
  }

  async unlockFile(tenant: string, path: string, holder: string): Promise<void> {
    await this.script('file-unlock', [this.keys.fileLock(tenant, path)], [holder]);
  }

  async circuits(scopes: string[], now: number): Promise<CircuitStatus[]> {
    if (scopes.length === 0) return [];
    const keys = scopes.map((scope) => this.keys.breaker(scope));
    const replies = await readEach<(string | null)[]>(this.reader, keys, (pipeline, key) =>
      pipeline.hmget(key, 'state', 'failures', 'reopens_at'),
    );
    return scopes.map((scope, i) => {
      const [state, failures, reopensAt] = replies[i] ?? [];
      const known = state === 'open' || state === 'half_open' ? state : 'closed';
      return circuitView(scope, known, Number(failures ?? 0), Number(reopensAt), now);
    });
  }

  async resetCircuit(scope: string): Promise<void> {
    await this.connection.run(() => this.client.del(this.keys.breaker(scope)));
  }

  listApprovals(tenant: string | null, query: ApprovalQuery, now: number): Promise<ApprovalRecord[]> {
    return this.approvals.listApprovals(tenant, query, now);
  }

  getApproval(id: string, tenant: string | null, now: number): Promise<ApprovalRecord | null> {
    return this.approvals.getApproval(id, tenant, now);
  }

  decideApproval(id: string, tenant: string | null, decision: ApprovalDecision, now: number): Promise<DecideOutcome | null> {
    return this.approvals.decideApproval(id, tenant, decision, now);
  }

  countPendingApprovals(now: number): Promise<number> {
    return this.approvals.countPendingApprovals(now);
  }

  async hit(subject: string, limit: number, windowMs: number, now: number, cost = 1): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const start = windowStart(now, windowMs);
    const count = Number(await this.script('hit', [this.keys.hit(subject, start)], [cost, windowMs]));
    return windowVerdict(count, limit, start, windowMs, now);
  }

  async ping(): Promise<void> {
    await this.connection.run(() => this.client.ping());
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private script(name: ScriptName, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.connection.run(() => this.client[scriptCommand(name)](keys.length, ...keys, ...args));
  }
}

export function createRedisStateStore(options: RedisStateStoreOptions): RedisStateStore {
  return new RedisStateStore(options);
}
