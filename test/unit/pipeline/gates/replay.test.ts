import { describe, expect, it } from 'vitest';
import { mismatchError, replayPart, stillRunningError } from '../../../../src/pipeline/gates/replay.js';
import { plannedCall } from '../../../helpers/gates.js';

describe('call-id replay gate: a side-effecting call id runs once', () => {
  const call = plannedCall({ name: 'Write' }, {}, { id: 'call_7', fingerprint: 'fp' });

  it('the same id with other arguments answers IDEMPOTENCY_MISMATCH, not retryable', () => {
    expect(mismatchError(call).toCallError()).toEqual({
      code: 'IDEMPOTENCY_MISMATCH',
      message: 'The call id call_7 was already used in this session with a different tool or arguments.',
      retryable: false,
      suggestion: 'Use a new call id for a different call.',
    });
  });

  it('a first run still going when the wait ends answers TIMEOUT, retryable after a second', () => {
    expect(stillRunningError(call).toCallError()).toEqual({
      code: 'TIMEOUT',
      message: 'The call id call_7 is still running in another request; its result was not ready in time.',
      retryable: true,
      retry_after_ms: 1000,
      suggestion: 'Retry with the same call id to get its result once it finishes.',
    });
  });

  it('asks for a lease outliving the call’s timeout, for side-effecting tools only', () => {
    expect(replayPart(call, 30_000)).toEqual({ fingerprint: 'fp', leaseMs: 35_000 });
    expect(replayPart(plannedCall({ name: 'Read', concurrencySafe: true }), 30_000)).toBeUndefined();
  });
});
