import { GatewayError } from '../../protocol/errors.js';
import { hasSideEffects } from '../side-effects.js';
import type { ExecContext, Gate, PipelineDeps, PlannedCall } from '../types.js';

/**
 * While the audit trail cannot be written, a call of a side-effecting tool
 * does not run: its record could not be stored before it is answered.
 * Read-only calls go on (their records are held and counted).
 */
function auditable(call: PlannedCall, _ctx: ExecContext, deps: PipelineDeps): GatewayError | undefined {
  if (!deps.audit || deps.audit.writable || !hasSideEffects(call.entry!)) return undefined;
  deps.metrics.auditUnrecorded.inc({ kind: 'refused' });
  return new GatewayError('AUDIT_UNAVAILABLE', {
    message: `The audit trail cannot be written, so ${call.name} was not run: a side-effecting call runs only when its record can be kept.`,
    retryAfterMs: 1_000,
    suggestion: 'Retry shortly.',
  });
}

export const auditGate: Gate = { name: 'audit', check: auditable };
