import { described, type ContentBlock } from './content.js';
import type { CallError } from './errors.js';

type CallStatus = 'success' | 'partial' | 'error';

/**
 * Where a cut output can be read whole: the store's own address (`uri`, for
 * operators) and the `/outputs/{id}` url. When the spill store failed, both
 * are null and `spill_error` says so: the cut payload stays within budget.
 */
export interface TruncationRecord {
  original_bytes: number;
  uri: string | null;
  url: string | null;
  sha256: string;
  spill_error?: string;
}

/** The `truncated` record the model sees: where to fetch the rest, never the store's own address. */
type VisibleTruncation = Omit<TruncationRecord, 'uri'>;

/**
 * A call's payload: what the model sees of it, with the full truncation
 * record; `visiblePayload` gives the form that is serialized into messages
 * and counted by the output budgets.
 */
export interface Payload {
  status: CallStatus;
  text: string;
  /** Images, audio and embedded resources (see content.ts); absent when the result has none. */
  content?: ContentBlock[];
  data?: unknown;
  error?: CallError;
  truncated: TruncationRecord | null;
}

/**
 * A payload as it reaches the model: `content`, `output` or `response` of a
 * message, an MCP result. Its `content` names each block without its base64
 * `data`, which messages carry natively beside it.
 */
export interface VisiblePayload extends Omit<Payload, 'truncated' | 'content'> {
  content?: Record<string, unknown>[];
  truncated: VisibleTruncation | null;
}

/** One entry of `results` in the POST /execute response. */
export interface CallResult extends Payload {
  tool_call_id: string;
  name: string;
  stats: { time_ms: number; output_bytes: number };
  replayed: boolean;
}

export function payloadOf(result: Payload): Payload {
  const payload: Payload = { status: result.status, text: result.text, truncated: result.truncated };
  if (result.content !== undefined) payload.content = result.content;
  if (result.data !== undefined) payload.data = result.data;
  if (result.error !== undefined) payload.error = result.error;
  return payload;
}

/** The payload fields the model sees, in the payload's key order; `results` keep the `uri` for operators. */
export function visiblePayload(result: Payload): VisiblePayload {
  // Built field by field: this runs for every call, and rest/spread copies cost as much again.
  const visible = { status: result.status, text: result.text } as VisiblePayload;
  if (result.content !== undefined) visible.content = result.content.map(described);
  if (result.data !== undefined) visible.data = result.data;
  if (result.error !== undefined) visible.error = result.error;
  visible.truncated = result.truncated ? withoutUri(result.truncated) : null;
  return visible;
}

function withoutUri({ uri: _uri, ...visible }: TruncationRecord): VisibleTruncation {
  return visible;
}

/**
 * A result served again from its record (call-id or Idempotency-Key replay).
 * A stored failure stays a failure, but retrying under the same id can only
 * replay it, so it is not retryable as sent.
 */
export function asReplayed(result: CallResult): CallResult {
  const replayed = { ...result, replayed: true };
  if (replayed.error?.retryable) {
    replayed.error = {
      ...replayed.error,
      retryable: false,
      suggestion: 'This call id already ran and failed; its result is replayed. To run the call again, send it under a new id.',
    };
  }
  return replayed;
}
