import type { NormalizedCall } from '../protocol/calls/index.js';
import { canonicalJson, sha256Hex } from '../protocol/canonical.js';
import { GatewayError } from '../protocol/errors.js';
import { asReplayed, type CallResult, type VisiblePayload } from '../protocol/result.js';
import type { StoredResult } from '../state/state-store.js';
import { executeCalls } from './execute-calls.js';
import { argumentsOrEmpty } from './gates/parse.js';
import { withState } from './state-health.js';
import type { ExecContext, PipelineDeps } from './types.js';

/** What a request is answered from: its results and, for a batch that ran, what the model sees of each. */
interface RequestOutcome {
  results: CallResult[];
  serialized?: readonly string[];
  payloads?: readonly VisiblePayload[];
}

/** An Idempotency-Key record: the results only, since the messages are rendered for each retry. */
interface StoredResponse {
  results: CallResult[];
}

/**
 * Run a request under its Idempotency-Key, or replay the whole response of the request that ran under it, bound to the retry's
 * call ids. One run per key: a retry while it runs waits for its response; a run that fails frees the key.
 */
export async function executeOnce(
  given: string,
  calls: readonly NormalizedCall[],
  ctx: ExecContext,
  deps: PipelineDeps,
): Promise<RequestOutcome> {
  const tenant = ctx.caller.tenant;
  // Per API key and user: another key of the tenant (perhaps allowed fewer tools), or another user of this key, must not be handed this
  // response. Neither a key id nor a header value holds a line break, so the parts never run into each other.
  const user = ctx.caller.user;
  const key = user === undefined ? `${ctx.caller.keyId}\n${given}` : `${ctx.caller.keyId}\n${user}\n${given}`;
  const fingerprint = requestFingerprint(ctx.sessionId, ctx.caller.toolset, calls);
  const leaseMs = deps.config.limits.tool_timeout_ms * deps.config.limits.calls_per_batch + 5_000;
  const claim = await withState(
    deps,
    ctx.log,
    () => deps.state.claimRequest(tenant, key, fingerprint, leaseMs),
    () => {
      throw stateUnavailable();
    },
  );
  if (claim.outcome === 'mismatch') {
    throw new GatewayError('IDEMPOTENCY_MISMATCH', {
      message:
        'This Idempotency-Key was already used with other tool calls (tool names and arguments, in order), another session or another toolset.',
    });
  }
  const replayed = (stored: StoredResult): RequestOutcome => ({
    results: replayOnto((stored as unknown as StoredResponse).results, calls),
  });
  if (claim.outcome === 'done') return replayed(claim.response);
  if (claim.outcome === 'in_flight') {
    const response = await deps.state.awaitRequest(tenant, key, deps.config.limits.tool_timeout_ms);
    if (response) return replayed(response);
    throw new GatewayError('REQUEST_IN_PROGRESS', { retryAfterMs: 1_000 });
  }
  let outcome: RequestOutcome;
  try {
    outcome = await executeCalls(calls, ctx, deps);
  } catch (err) {
    await deps.state.releaseRequest(tenant, key).catch(() => undefined);
    throw err;
  }
  const stored: StoredResponse = { results: outcome.results };
  await deps.state
    .completeRequest(tenant, key, stored as unknown as StoredResult, deps.config.state.replay_ttl_ms)
    .catch((err: unknown) => ctx.log.warn({ err }, 'could not store the response for its Idempotency-Key'));
  return outcome;
}

function stateUnavailable(): GatewayError {
  return new GatewayError('STATE_UNAVAILABLE', {
    message: 'The Idempotency-Key cannot be honoured while the state store is unreachable; nothing was run.',
    retryAfterMs: 1_000,
  });
}

/**
 * What a retry of the same request keeps: the session, the toolset (it decides which calls may run), then each call's tool name
 * and arguments as parsed JSON, in order. Call ids are left out: models regenerate them on retry.
 */
function requestFingerprint(sessionId: string, toolset: string | undefined, calls: readonly NormalizedCall[]): string {
  const parts: unknown[] = [sessionId, ...calls.map((call) => [call.name, ...parsedArguments(call.rawArguments)])];
  // Last, as the only object: a request without a set keeps the fingerprint its records were stored under.
  if (toolset !== undefined) parts.push({ toolset });
  return sha256Hex(canonicalJson(parts));
}

// Tagged, so that text that is not JSON never hashes like some parsed value.
function parsedArguments(given: unknown): ['json' | 'text', unknown] {
  const raw = argumentsOrEmpty(given);
  if (typeof raw !== 'string') return ['json', raw];
  try {
    return ['json', JSON.parse(raw) as unknown];
  } catch {
    return ['text', raw];
  }
}

/** A stored response's results bound to the retry's call ids, by position (the fingerprint holds the tools and their order). */
function replayOnto(stored: readonly CallResult[], calls: readonly NormalizedCall[]): CallResult[] {
  return stored.map((result, i) => ({ ...asReplayed(result), tool_call_id: calls[i]!.id }));
}
