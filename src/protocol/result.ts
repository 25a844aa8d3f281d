import { described, type ContentBlock } from './content.js';
import type { CallError } from './errors.js';

type CallStatus = 'success' | 'partial' | 'error';

/** Where a cut output can be read whole (`uri` for operators, the `/outputs/{id}` url); null, with `spill_error`, if the store failed. */
export interface TruncationRecord {
  original_bytes: number;
  uri: string | null;
  url: string | null;
  sha256: string;
  spill_error?: string;
}

/** The `truncated` record the model sees: where to fetch the rest, never the store's own address. */
type VisibleTruncation = Omit<TruncationRecord, 'uri'>;

/** A call's payload with the full truncation record; `visiblePayload` gives what messages carry and the budgets count. */
export interface Payload {
  status: CallStatus;
  text: string;
  /** Images, audio and embedded resources (see content.ts); absent when the result has none. */
  content?: ContentBlock[];
  data?: unknown;
  error?: CallError;
  truncated: TruncationRecord | null;
}

/** A payload as it reaches the model; its `content` names each block without the base64 `data`, carried natively beside it. */
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

/** A result as the model reads it, the tool message's content: the one serialization the budgets count and the messages carry. */
export function payloadJson(payload: Payload): string {
  return JSON.stringify(visiblePayload(payload));
}

function withoutUri({ uri: _uri, ...visible }: TruncationRecord): VisibleTruncation {
  return visible;
}

/** A result replayed from its record: a stored failure stays one, not retryable under the same id. */
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
