import { GatewayError } from '../errors.js';
import { isRecord, own } from '../json.js';
import { levels, type CallList } from './locate.js';
import { badRequest, join, quote } from './report.js';

// Compared lower-cased: OpenAI `length`, Anthropic `max_tokens` and `model_context_window_exceeded`, Gemini `MAX_TOKENS`.
const INCOMPLETE_REASONS = new Set(['length', 'max_tokens', 'model_context_window_exceeded']);

/**
 * Every finish/stop reason in the body. A token-limit stop means the last call's arguments may be cut off, so nothing may run: partial
 * arguments are never executed.
 */
export function checkStopReasons(body: unknown): string | undefined {
  let first: string | undefined;
  for (const { node, path } of levels(body)) {
    for (const key of ['finish_reason', 'stop_reason', 'finishReason']) {
      const value = own(node, key);
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') throw badRequest(`${join(path, key)} must be a string.`, { path: join(path, key) });
      if (INCOMPLETE_REASONS.has(value.toLowerCase())) throw incomplete(join(path, key), value);
      first ??= value;
    }
    // A Responses object stopped early (max_output_tokens, content_filter) may end mid-call.
    if (own(node, 'status') === 'incomplete' && own(node, 'output') !== undefined) {
      const details = own(node, 'incomplete_details');
      const reason = isRecord(details) && typeof own(details, 'reason') === 'string' ? (own(details, 'reason') as string) : 'incomplete';
      throw incomplete(join(path, 'status'), reason);
    }
  }
  return first;
}

function incomplete(path: string, reason: string): GatewayError {
  return new GatewayError('INCOMPLETE_TOOL_CALLS', {
    message: `The model stopped early (${path}: ${quote(reason)}); its tool calls may be cut off, so none was run.`,
    details: { path, reason },
  });
}

// A Responses `function_call` item still being written when the output stopped.
export function rejectIncompleteItems(list: CallList): void {
  list.items.forEach((item, position) => {
    if (isRecord(item) && own(item, 'type') === 'function_call' && own(item, 'status') === 'incomplete') {
      throw incomplete(`${list.path}[${position}].status`, 'incomplete');
    }
  });
}
