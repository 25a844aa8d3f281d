import { randomUUID } from 'node:crypto';
import { newApprovalId, openedRecord } from '../approval-records.js';
import type { Admission, AdmitRequest, SettleRequest } from '../admission.js';
import { breakerTtl, KeyList, toAdmission, type AdmitReply } from './codec.js';
import type { RedisKeys } from './keys.js';
import type { ScriptName } from './scripts.js';
import { groupOf, SlotScripts } from './slots.js';

type RunScript = (name: ScriptName, keys: string[], args: (string | number)[]) => Promise<unknown>;

/** How a batch's scripts are built: the key layout, whether scripts are split by slot, and how one is run. */
export interface BatchContext {
  keys: RedisKeys;
  sharded: boolean;
  run: RunScript;
}

type Spec = Record<string, unknown>;

/**
 * One script where breakers share the tenant's slot. Otherwise (shared
 * breakers on a Cluster), in order: the breakers' slot (check, probe taken);
 * the tenant's slot, told the verdicts, takes nothing for a stopped call;
 * then a refused call's probe is freed and pending approvals are indexed
 * globally, on every pending answer (docs/replicas.md).
 */
export async function admitBatch(requests: AdmitRequest[], now: number, ctx: BatchContext): Promise<Admission[]> {
  const token = ctx.sharded ? randomUUID() : '';
  const breakers = ctx.sharded ? await breakersApart(requests, now, token, ctx) : new Map<number, BreakerApart>();
  const tenants = new SlotScripts<Spec>(ctx.sharded);
  const globalApart = new Set<number>();
  const decided: AdmitReply[] = [];
  requests.forEach((r, i) => {
    const apart = breakers.get(i);
    if (apart && !r.replay && !r.approval && r.lockPath === undefined && !r.rateLimit) {
      decided[i] = apart.reply;
      return;
    }
    const tenantKey = ctx.keys.tenant(r.tenant);
    const script = tenants.for(tenantKey);
    const keys = script.keys;
    const approval = r.approval && approvalSpec(r, r.approval, keys, tenantKey, ctx);
    if (approval && !together(ctx, ctx.keys.approvalIndex(null), tenantKey)) globalApart.add(i);
    script.specs.push({
      replay: r.replay && { k: keys.add(ctx.keys.call(r)), fp: r.replay.fingerprint, lease: r.replay.leaseMs },
      approval,
      lock: r.lockPath === undefined ? undefined : keys.add(ctx.keys.lock(r.tenant, r.sessionId, r.lockPath, r.user)),
      breaker: breakerSpec(r, apart, keys, ctx),
      rate: r.rateLimit && { k: keys.add(ctx.keys.rate(r.tenant, r.rateLimit.subject, r.tool)), per_minute: r.rateLimit.perMinute },
    });
    script.at.push(i);
  });
  const replies = Object.assign(await runAll('admit', tenants, now, ctx), decided);
  if (breakers.size > 0 || globalApart.size > 0) {
    await Promise.all([freeProbes(replies, breakers, token, ctx), indexApprovals(requests, replies, globalApart, now, ctx)]);
  }
  return replies.map((reply, i) => {
    const apart = breakers.get(i)?.reply;
    const admission = toAdmission(reply.o === 'admitted' && apart?.o === 'admitted' ? { ...reply, probe: apart.probe } : reply);
    const r = requests[i]!;
    if (admission.outcome === 'approval_pending' && reply.o === 'approval_pending' && reply.new && r.approval?.open) {
      admission.opened = openedRecord(r, r.approval.open, reply.id, r.approval.ttlMs, now);
    }
    return admission;
  });
}

/** What settling a batch writes: the tenant's slot and, apart from it, the breakers' slot, sent together. */
export async function settleBatch(requests: SettleRequest[], now: number, ctx: BatchContext): Promise<void> {
  const scripts = new SlotScripts<Spec>(ctx.sharded);
  for (const r of requests) {
    const tenant = scripts.for(ctx.keys.tenant(r.tenant));
    const breakerKey = ctx.keys.breaker(r.breaker.scope);
    const own = scripts.for(breakerKey);
    const breaker = {
      k: own.keys.add(breakerKey),
      outcome: r.breaker.outcome,
      probe: r.breaker.probe,
      threshold: r.breaker.failureThreshold,
      recovery: r.breaker.recoveryMs,
      ttl: breakerTtl(r.breaker),
    };
    const lock = r.lock && {
      k: tenant.keys.add(ctx.keys.lock(r.tenant, r.sessionId, r.lock.path, r.user)),
      meta: JSON.stringify(r.lock.meta),
      ttl: r.lock.ttlMs,
    };
    const replay = r.replay && { k: tenant.keys.add(ctx.keys.call(r)), res: JSON.stringify(r.replay.result), ttl: r.replay.ttlMs };
    if (own === tenant) {
      tenant.specs.push({ breaker, lock, replay });
      continue;
    }
    own.specs.push({ breaker });
    if (lock || replay) tenant.specs.push({ lock, replay });
  }
  await Promise.all(scripts.scripts.map((s) => ctx.run('settle', s.keys.keys, [now, JSON.stringify(s.specs)])));
}

/** A breaker decided apart passes on only a verdict that stops the call. */
function breakerSpec(r: AdmitRequest, apart: BreakerApart | undefined, keys: KeyList, ctx: BatchContext): Spec | undefined {
  if (apart === undefined)
    return { k: keys.add(ctx.keys.breaker(r.breaker.scope)), recovery: r.breaker.recoveryMs, ttl: breakerTtl(r.breaker) };
  return apart.reply.o === 'admitted' ? undefined : { stop: apart.reply };
}

/** The approval check; with `open`, a new request's fields, its id pointer and global index only when they share the tenant's slot. */
function approvalSpec(
  r: AdmitRequest,
  approval: NonNullable<AdmitRequest['approval']>,
  keys: KeyList,
  tenantKey: string,
  ctx: BatchContext,
): Spec {
  const spec: Spec = {
    k: keys.add(ctx.keys.approval(r.tenant, r.sessionId, r.tool, approval.argsHash, r.user)),
    tidx: keys.add(ctx.keys.approvalIndex(r.tenant)),
    hist: keys.add(ctx.keys.approvalHistory(r.tenant)),
    ttl: approval.ttlMs,
    ...(approval.maxPending !== undefined && { max: approval.maxPending }),
    tenant: r.tenant,
    session: r.sessionId,
    ...(r.user !== undefined && { user: r.user }),
  };
  if (!approval.open) return spec;
  const id = newApprovalId();
  spec.open = {
    id,
    tool: approval.open.tool,
    args: JSON.stringify(approval.open.arguments ?? null),
    preview: JSON.stringify(approval.open.preview),
  };
  const global = ctx.keys.approvalIndex(null);
  if (together(ctx, global, tenantKey)) {
    spec.ptr = keys.add(ctx.keys.approvalId(id));
    spec.gidx = keys.add(global);
  }
  return spec;
}

function together(ctx: BatchContext, key: string, other: string): boolean {
  return !ctx.sharded || groupOf(key, true) === groupOf(other, true);
}

interface BreakerApart {
  reply: AdmitReply;
  key: string;
}

/** Step 1: breakers outside their tenant's slot, probe slot taken under `token`. */
async function breakersApart(requests: AdmitRequest[], now: number, token: string, ctx: BatchContext): Promise<Map<number, BreakerApart>> {
  const scripts = new SlotScripts<Spec>(ctx.sharded);
  const keyOf = new Map<number, string>();
  requests.forEach((r, i) => {
    const key = ctx.keys.breaker(r.breaker.scope);
    if (together(ctx, key, ctx.keys.tenant(r.tenant))) return;
    const script = scripts.for(key);
    script.specs.push({ breaker: { k: script.keys.add(key), recovery: r.breaker.recoveryMs, ttl: breakerTtl(r.breaker), token } });
    script.at.push(i);
    keyOf.set(i, key);
  });
  const verdicts = new Map<number, BreakerApart>();
  if (keyOf.size === 0) return verdicts;
  const replies = await runAll('admit', scripts, now, ctx);
  for (const [i, key] of keyOf) verdicts.set(i, { reply: replies[i] as AdmitReply, key });
  return verdicts;
}

/** Step 3: probe slots taken in step 1 for calls the tenant's script refused. */
async function freeProbes(replies: AdmitReply[], breakers: Map<number, BreakerApart>, token: string, ctx: BatchContext): Promise<void> {
  const scripts = new SlotScripts<Spec>(ctx.sharded);
  for (const [i, { reply, key }] of breakers) {
    if (reply.o !== 'admitted' || !reply.probe || replies[i]?.o === 'admitted') continue;
    const script = scripts.for(key);
    script.specs.push({ k: script.keys.add(key), token });
  }
  await Promise.all(scripts.scripts.map((s) => ctx.run('unprobe', s.keys.keys, [JSON.stringify(s.specs)])));
}

/** Step 3: the global index and id pointers of pending approvals. */
async function indexApprovals(
  requests: AdmitRequest[],
  replies: AdmitReply[],
  apart: Set<number>,
  now: number,
  ctx: BatchContext,
): Promise<void> {
  const global = ctx.keys.approvalIndex(null);
  const keys = new KeyList();
  keys.add(global);
  const specs: Spec[] = [];
  for (const i of apart) {
    const reply = replies[i];
    const r = requests[i] as AdmitRequest;
    if (reply?.o !== 'approval_pending' || !r.approval) continue;
    const key = ctx.keys.approval(r.tenant, r.sessionId, r.tool, r.approval.argsHash, r.user);
    specs.push({ ptr: keys.add(ctx.keys.approvalId(reply.id)), key, exp: reply.exp });
  }
  if (specs.length > 0) await ctx.run('index', keys.keys, [now, JSON.stringify(specs)]);
}

/** Every script of a phase sent at once (one event-loop turn, so one write per node); the replies back in batch order. */
async function runAll(name: ScriptName, scripts: SlotScripts<Spec>, now: number, ctx: BatchContext): Promise<AdmitReply[]> {
  const replies: AdmitReply[] = [];
  await Promise.all(
    scripts.scripts.map(async (s) => {
      const out = (await ctx.run(name, s.keys.keys, [now, JSON.stringify(s.specs)])) as string[];
      out.forEach((reply, j) => (replies[s.at[j] as number] = JSON.parse(reply) as AdmitReply));
    }),
  );
  return replies;
}
