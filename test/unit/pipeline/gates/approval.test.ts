import { describe, expect, it } from 'vitest';
import { approvalDeniedError, approvalPart, approvalPendingError } from '../../../../src/pipeline/gates/approval.js';
import { gateDeps, plannedCall } from '../../../helpers/gates.js';

describe('approval gate: an ASK runs only once an operator approves', () => {
  const call = plannedCall({ name: 'Bash' }, { command: 'mv a b', token: 'secret' }, { decision: 'ask', fingerprint: 'fp' });

  it('a pending request answers APPROVAL_REQUIRED, retryable, with details.approval_id', () => {
    expect(approvalPendingError(call, 'apr_1').toCallError()).toEqual({
      code: 'APPROVAL_REQUIRED',
      message: 'This call to Bash needs human approval (request apr_1).',
      retryable: true,
      suggestion: 'Tell the user an approval is pending; once approved, send the same call again.',
      details: { approval_id: 'apr_1' },
    });
  });

  it('a denied request answers PERMISSION_DENIED, not retryable, with the operator’s reason when given', () => {
    expect(approvalDeniedError(call, 'apr_1', 'not on prod').toCallError()).toEqual({
      code: 'PERMISSION_DENIED',
      message: 'An operator denied this call to Bash: not on prod.',
      retryable: false,
      suggestion: 'Do not retry this call; choose another approach or ask the user.',
      details: { approval_id: 'apr_1' },
    });
    expect(approvalDeniedError(call, 'apr_1', undefined).message).toBe('An operator denied this call to Bash.');
  });

  it('asks the store only for an ASK, keyed by the arguments, with nothing to open until the store says none is live', () => {
    expect(approvalPart(call, gateDeps({ state: { approval_ttl_ms: 60_000 } }))).toEqual({
      argsHash: 'fp',
      ttlMs: 60_000,
      maxPending: 1000,
    });
    expect(approvalPart({ ...call, decision: 'allow' }, gateDeps())).toBeUndefined();
  });
});
