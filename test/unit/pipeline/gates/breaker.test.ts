import { describe, expect, it } from 'vitest';
import { breakerOutcome, breakerPart, circuitOpenError } from '../../../../src/pipeline/gates/breaker.js';
import { GatewayError } from '../../../../src/protocol/errors.js';
import { caller, gateDeps, plannedCall } from '../../../helpers/gates.js';

describe('breaker gate: an open circuit stops the call; only malfunctions count', () => {
  const call = plannedCall({ name: 'Fetch', breaker: { failureThreshold: 5 } });

  it('an open circuit answers CIRCUIT_OPEN, retryable, with the wait the store gave', () => {
    expect(circuitOpenError(call, 1234.2).toCallError()).toEqual({
      code: 'CIRCUIT_OPEN',
      message: 'Fetch is failing and its circuit is open.',
      retryable: true,
      retry_after_ms: 1235,
      suggestion: 'Use another tool for now, or retry after retry_after_ms.',
    });
  });

  it('asks the store about the tool’s breaker: the caller’s tenant’s own unless per_tenant_breakers is off', () => {
    expect(breakerPart(call.entry!, caller(), gateDeps())).toEqual({ scope: 'acme:Fetch', failureThreshold: 5, recoveryMs: 300_000 });
    expect(breakerPart(call.entry!, caller(), gateDeps({ defaults: { per_tenant_breakers: false } })).scope).toBe('Fetch');
  });

  it('counts the tool’s malfunctions only; a timeout the caller cut is neutral', () => {
    expect(breakerOutcome(undefined)).toBe('success');
    expect(breakerOutcome(new GatewayError('TIMEOUT'))).toBe('failure');
    expect(breakerOutcome(new GatewayError('TIMEOUT'), true)).toBe('neutral');
    expect(breakerOutcome(new GatewayError('EXECUTION_FAILED'))).toBe('failure');
    expect(breakerOutcome(new GatewayError('UPSTREAM_ERROR', { details: { status: 503 } }))).toBe('failure');
    expect(breakerOutcome(new GatewayError('UPSTREAM_ERROR', { details: { status: 404 } }))).toBe('neutral');
    expect(breakerOutcome(new GatewayError('UPSTREAM_ERROR'))).toBe('failure');
    expect(breakerOutcome(new GatewayError('CONFLICT'))).toBe('neutral');
  });

  it("a call the client cancelled (/mcp notifications/cancelled) is the client's choice, never counted", () => {
    expect(breakerOutcome(new GatewayError('CANCELLED'))).toBe('neutral');
  });

  it("a Bash command's non-zero exit is an answer, never counted; so is a timeout its own timeout_ms set", () => {
    expect(breakerOutcome(new GatewayError('COMMAND_FAILED', { details: { exit_code: 1, signal: null } }))).toBe('neutral');
    expect(breakerOutcome(new GatewayError('TIMEOUT', { details: { timeout_ms: 300, lowered_by_arguments: true } }))).toBe('neutral');
    expect(breakerOutcome(new GatewayError('TIMEOUT', { details: { timeout_ms: 30_000, lowered_by_arguments: false } }))).toBe('failure');
  });
});
