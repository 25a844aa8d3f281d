import type { ApprovalRecord } from '../../protocol/approval.js';
import { asKept, byCreation } from '../approval-records.js';
import type { ApprovalDecision, ApprovalQuery, ApprovalStore, DecideOutcome } from '../approvals.js';
import type { BatchContext } from './batch.js';
import { fromKept, hashOf, toApprovalRecord } from './codec.js';
import { readEach, type Reader } from './read-each.js';
import { groupOf } from './slots.js';

const DECIDED_PAGE = 100;

/** Approval requests in Redis: the tenant's hashes and indexes, the global indexes and the id pointers (keys.ts). */
export class RedisApprovals implements ApprovalStore {
  constructor(private readonly ctx: BatchContext & Reader) {}

  async listApprovals(tenant: string | null, query: ApprovalQuery, now: number): Promise<ApprovalRecord[]> {
    if (query.status !== 'pending') return this.listDecided(tenant, query, now);
    const index = this.ctx.keys.approvalIndex(tenant);
    const members = await this.ctx.connection.run(() => this.ctx.client.zrangebyscore(index, `(${now}`, '+inf', 'LIMIT', 0, query.limit));
    if (members.length === 0) return [];
    const hashes = await readEach<Record<string, string>>(this.ctx, members, (pipeline, key) => pipeline.hgetall(key));
    return hashes
      .filter((hash) => hash.id !== undefined && hash.status === 'pending' && Number(hash.expires_at) > now)
      .map(toApprovalRecord)
      .sort(byCreation);
  }

  /** Most recently decided first; one status of them a page of the index at a time until `limit` match (the history bounds the pages). */
  private async listDecided(tenant: string | null, query: ApprovalQuery, now: number): Promise<ApprovalRecord[]> {
    const page = query.status === 'decided' ? query.limit : Math.max(query.limit, DECIDED_PAGE);
    const index = this.ctx.keys.decidedIndex(tenant);
    const found: ApprovalRecord[] = [];
    for (let offset = 0; found.length < query.limit; offset += page) {
      const ids = await this.ctx.connection.run(() => this.ctx.client.zrevrangebyscore(index, '+inf', `(${now}`, 'LIMIT', offset, page));
      const records = await this.keptRecords(tenant, ids, now);
      found.push(...records.filter((record) => query.status === 'decided' || record.status === query.status));
      if (ids.length < page) break;
    }
    return found.slice(0, query.limit);
  }

  private async keptRecords(tenant: string | null, ids: string[], now: number): Promise<ApprovalRecord[]> {
    if (ids.length === 0) return [];
    let histories: (string | null)[];
    if (tenant !== null) {
      histories = ids.map(() => this.ctx.keys.approvalHistory(tenant));
    } else {
      const targets = await readEach<string | null>(
        this.ctx,
        ids.map((id) => this.ctx.keys.approvalId(id)),
        (pipeline, key) => pipeline.get(key),
      );
      histories = targets.map((target) => (target === null ? null : this.ctx.keys.tenantApprovalKeys(target).history));
    }
    const found = ids.flatMap((id, i) => (histories[i] ? [{ id, history: histories[i] }] : []));
    const kept = await readEach<(string | null)[]>(
      this.ctx,
      found.map((f) => f.history),
      (pipeline, key, i) => pipeline.hmget(key, found[i]!.id, `ran:${found[i]!.id}`),
    );
    return kept.flatMap(([json, ran]) => {
      const record = json ? fromKept(json, now) : null;
      return record ? [asKept(record, ran != null, now)] : [];
    });
  }

  /** The id pointer first: it names the request's key, so its tenant's slot. */
  async getApproval(id: string, tenant: string | null, now: number): Promise<ApprovalRecord | null> {
    const target = await this.ownTarget(id, tenant);
    if (target === null) return null;
    const { history } = this.ctx.keys.tenantApprovalKeys(target);
    const pipeline = this.ctx.client.pipeline().hmget(history, id, `ran:${id}`).hgetall(target);
    const [[json, ran], hash] = (await this.ctx.connection.exec(pipeline)) as [(string | null)[], Record<string, string>];
    const kept = json ? fromKept(json, now) : null;
    if (kept) return asKept(kept, ran != null, now);
    if (hash.id !== id || hash.status !== 'pending' || Number(hash.expires_at) <= now) return null;
    return toApprovalRecord(hash);
  }

  async decideApproval(id: string, tenant: string | null, decision: ApprovalDecision, now: number): Promise<DecideOutcome | null> {
    const target = await this.ownTarget(id, tenant);
    if (target === null) return null;
    const own = this.ctx.keys.tenantApprovalKeys(target);
    const pending = this.ctx.keys.approvalIndex(null);
    const decided = this.ctx.keys.decidedIndex(null);
    const pointer = this.ctx.keys.approvalId(id);
    const global = !this.ctx.sharded || groupOf(pending, true) === groupOf(target, true) ? [pending, decided, pointer] : [];
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
    const reply = (await this.ctx.run('decide', keys, args)) as [string, string, string?] | null;
    if (reply === null) return null;
    const [outcome, json, ran] = reply;
    // A decision the history has forgotten, but the request still holds: it stands, as the request says.
    const record = fromKept(json, now) ?? toApprovalRecord(hashOf(JSON.parse(json) as string[]));
    if (outcome === 'already') return { outcome, record: asKept(record, ran === '1', now) };
    if (global.length === 0) await this.ctx.run('decided', [pending, decided, pointer], [target, id, now, history.ttlMs, history.count]);
    return { outcome: 'decided', record };
  }

  private async ownTarget(id: string, tenant: string | null): Promise<string | null> {
    const target = await this.ctx.connection.run(() => this.ctx.client.get(this.ctx.keys.approvalId(id)));
    if (target === null) return null;
    return tenant === null || this.ctx.keys.slotOf(target) === this.ctx.keys.tenant(tenant) ? target : null;
  }

  async countPendingApprovals(now: number): Promise<number> {
    return this.ctx.connection.run(() => this.ctx.client.zcount(this.ctx.keys.approvalIndex(null), `(${now}`, '+inf'));
  }
}
