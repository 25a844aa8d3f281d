import { describe, expect, it } from 'vitest';
import { auditGate } from '../../../../src/pipeline/gates/audit.js';
import type { ExecContext, PipelineDeps } from '../../../../src/pipeline/types.js';
import { gateDeps, plannedCall } from '../../../helpers/gates.js';

/** deps with an audit trail that is writable or not, counting what the gate refuses. */
function withTrail(writable: boolean | undefined) {
  const refused: unknown[] = [];
  const deps = {
    ...gateDeps(),
    metrics: { auditUnrecorded: { inc: (labels: unknown) => refused.push(labels) } },
    ...(writable !== undefined && { audit: { writable } }),
  } as unknown as PipelineDeps;
  return { deps, refused };
}

const check = (call: ReturnType<typeof plannedCall>, deps: PipelineDeps) => auditGate.check!(call, {} as ExecContext, deps);

describe('audit gate: a side-effecting call runs only when its record can be kept', () => {
  it('while the trail cannot be written, a call with side effects is refused AUDIT_UNAVAILABLE, retryable, and counted', () => {
    const { deps, refused } = withTrail(false);
    const failure = check(plannedCall({ name: 'Write', concurrencySafe: false }), deps);
    expect(failure?.toCallError()).toMatchObject({ code: 'AUDIT_UNAVAILABLE', retryable: true, retry_after_ms: 1_000 });
    expect(refused).toEqual([{ kind: 'refused' }]);
  });

  it('a read-only call goes on; so does every call while the trail is writable, or with no trail at all', () => {
    const down = withTrail(false);
    expect(check(plannedCall({ name: 'Read', concurrencySafe: true }), down.deps)).toBeUndefined();
    expect(down.refused).toEqual([]);
    for (const writable of [true, undefined]) {
      expect(check(plannedCall({ name: 'Write', concurrencySafe: false }), withTrail(writable).deps)).toBeUndefined();
    }
  });

  it('a concurrency-safe tool declared with side effects is refused like any other', () => {
    const { deps } = withTrail(false);
    expect(check(plannedCall({ name: 'Post', concurrencySafe: true, sideEffects: true }), deps)?.code).toBe('AUDIT_UNAVAILABLE');
  });
});
