import { describe, expect, it } from 'vitest';
import { errorResult, outputResult, replayedResult, withPayload } from '../../../src/pipeline/call-result.js';
import { GatewayError } from '../../../src/protocol/errors.js';
import type { StoredResult } from '../../../src/state/state-store.js';
import { plannedCall } from '../../helpers/gates.js';

const call = { ...plannedCall({ name: 'Write' }), id: 'call_9' };

describe("a call's result, one shape for each way a call ends", () => {
  it('stopped or failed: an error result with no text, under the call id and name', () => {
    expect(errorResult(call, new GatewayError('NOT_FOUND', { message: 'No such file.' }), 12)).toEqual({
      tool_call_id: 'call_9',
      name: 'Write',
      status: 'error',
      text: '',
      error: { code: 'NOT_FOUND', message: 'No such file.', retryable: false },
      truncated: null,
      stats: { time_ms: 12, output_bytes: 0 },
      replayed: false,
    });
  });

  it("answered by its tool: success, partial (the tool's own word) or error (keeping text and data)", () => {
    expect(outputResult(call, { text: 'done' }, 3)).toMatchObject({ status: 'success', text: 'done', stats: { output_bytes: 4 } });
    expect(outputResult(call, { text: 'half', partial: true }, 3).status).toBe('partial');
    const failed = outputResult(call, { text: 'out', data: { n: 1 }, error: new GatewayError('CONFLICT') }, 3);
    expect(failed).toMatchObject({ status: 'error', text: 'out', data: { n: 1 }, error: { code: 'CONFLICT' } });
  });

  it('answered from a stored run: under this call id, marked replayed', () => {
    const stored = { name: 'Write', status: 'success', text: 'done', truncated: null, stats: { time_ms: 5, output_bytes: 4 } };
    expect(replayedResult(call, stored as unknown as StoredResult)).toMatchObject({ tool_call_id: 'call_9', replayed: true, text: 'done' });
  });

  it('a budget that dropped data leaves a result without it', () => {
    const result = outputResult(call, { text: 'done', data: { big: true } }, 1);
    const { data: _data, ...payload } = { ...result };
    expect(withPayload(result, { status: 'partial', text: 'do', truncated: null })).not.toHaveProperty('data');
    expect(withPayload(result, { ...payload, status: 'success', text: 'done', truncated: null, data: { big: true } }).data).toEqual({
      big: true,
    });
  });
});
