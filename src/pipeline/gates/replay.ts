import { canonicalJson, sha256Hex } from '../../protocol/canonical.js';
import { GatewayError } from '../../protocol/errors.js';
import type { CallResult } from '../../protocol/result.js';
import type { AdmitRequest, SettleRequest, StoredResult } from '../../state/state-store.js';
import type { PipelineDeps, PlannedCall } from '../types.js';

/** Binds a call id to what it asked for, so the same id with other arguments is caught. */
export function fingerprintOf(name: string, args: Record<string, unknown>): string {
  return sha256Hex(`${name}\n${canonicalJson(args)}`);
}

/*
 * Call-id replay: a side-effecting call id runs once per session; the same id
 * again gets the stored result, waits for the running one, or is refused for
 * other arguments. The once-record transitions are the store's:
 * state/memory/once-records.ts and state/redis/lua/includes/replay.lua.
 */

/**
 * Call-id replay applies to side-effecting tools only: read-only calls are
 * simply run again. The lease outlives the call's timeout so a slow first run
 * is not mistaken for a crashed one.
 */
export function replayPart(call: PlannedCall, timeoutMs: number): AdmitRequest['replay'] {
  if (call.entry!.concurrencySafe) return undefined;
  return { fingerprint: call.fingerprint!, leaseMs: timeoutMs + 5_000 };
}

/**
 * Gate 9's replay half: a call that held the replay lease leaves its result for the same id again, without the id itself (a replay answers
 * with its own).
 */
export function replaySettlePart(result: CallResult, deps: PipelineDeps): SettleRequest['replay'] {
  const { tool_call_id: _id, replayed: _replayed, ...stored } = result;
  return { result: stored as StoredResult, ttlMs: deps.config.state.replay_ttl_ms };
}

/** The id was used for another call: final, a new id is the way on. */
export function mismatchError(call: PlannedCall): GatewayError {
  return new GatewayError('IDEMPOTENCY_MISMATCH', {
    message: `The call id ${call.id} was already used in this session with a different tool or arguments.`,
    suggestion: 'Use a new call id for a different call.',
  });
}

/** The first run outlasted this call's wait for it: retryable, the same id then gets its result. */
export function stillRunningError(call: PlannedCall): GatewayError {
  return new GatewayError('TIMEOUT', {
    message: `The call id ${call.id} is still running in another request; its result was not ready in time.`,
    retryAfterMs: 1_000,
    suggestion: 'Retry with the same call id to get its result once it finishes.',
  });
}
