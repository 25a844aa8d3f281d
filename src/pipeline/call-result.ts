import type { GatewayError } from '../protocol/errors.js';
import { asReplayed, type CallResult, type Payload } from '../protocol/result.js';
import type { StoredResult } from '../state/state-store.js';
import type { ToolOutput } from '../tools/tool.js';
import { truncationRecord } from './budget.js';
import type { PlannedCall } from './types.js';

export function errorResult(call: PlannedCall, error: GatewayError, timeMs = 0): CallResult {
  return {
    tool_call_id: call.id,
    name: call.name,
    status: 'error',
    text: '',
    error: error.toCallError(),
    truncated: null,
    stats: { time_ms: timeMs, output_bytes: 0 },
    replayed: false,
  };
}

export function replayedResult(call: PlannedCall, stored: StoredResult): CallResult {
  return asReplayed({ ...(stored as unknown as CallResult), tool_call_id: call.id, name: call.name });
}

/** What the tool answered: a success, or (`output.error`) a failure that keeps its text and data. */
export function outputResult(call: PlannedCall, output: ToolOutput, timeMs: number): CallResult {
  const truncated = output.spilled ? truncationRecord(output.spilled.record) : null;
  const result: CallResult = {
    tool_call_id: call.id,
    name: call.name,
    status: output.error ? 'error' : output.partial || truncated ? 'partial' : 'success',
    text: output.text,
    truncated,
    stats: { time_ms: timeMs, output_bytes: Buffer.byteLength(output.text) },
    replayed: false,
  };
  if (output.content !== undefined) result.content = output.content;
  if (output.data !== undefined) result.data = output.data;
  if (output.error) result.error = output.error.toCallError();
  return result;
}

/** The result with its payload fields replaced: a budget may have dropped `data`. */
export function withPayload(result: CallResult, payload: Payload): CallResult {
  const { data: _data, error: _error, content: _content, ...rest } = result;
  return { ...rest, ...payload };
}
