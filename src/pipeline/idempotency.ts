import { canonicalJson, sha256Hex } from '../protocol/canonical.js';
import type { NormalizedCall } from '../protocol/calls/index.js';
import { asReplayed, type CallResult } from '../protocol/result.js';

/**
 * What a retry of the same request keeps: the session, then each call's
 * tool name and arguments, in order. Call ids are left out (models
 * regenerate them on retry), and so are the envelope's shape fields: the
 * stored answer is re-rendered for the retry (see {@link replayOnto}).
 * Arguments count as parsed JSON, so key order and a string versus an object
 * do not matter; arguments that do not parse count as their text.
 */
export function requestFingerprint(sessionId: string, calls: readonly NormalizedCall[]): string {
  return sha256Hex(canonicalJson([sessionId, ...calls.map((call) => [call.name, ...parsedArguments(call.rawArguments)])]));
}

// Tagged, so that text that is not JSON never hashes like some parsed value.
function parsedArguments(raw: unknown): ['json' | 'text', unknown] {
  // As the parse gate reads them: absent, null and "" are {}.
  if (raw === undefined || raw === null || raw === '') return ['json', {}];
  if (typeof raw !== 'string') return ['json', raw];
  try {
    return ['json', JSON.parse(raw) as unknown];
  } catch {
    return ['text', raw];
  }
}

/**
 * A stored response's results bound to the retry's call ids, by position:
 * the fingerprint guarantees the same tools in the same order.
 */
export function replayOnto(stored: readonly CallResult[], calls: readonly NormalizedCall[]): CallResult[] {
  return stored.map((result, i) => ({ ...asReplayed(result), tool_call_id: calls[i]!.id }));
}
