import { ADMISSION_CONSTANTS } from '../admission-constants.js';
import { circuitView } from '../circuits.js';
import type { Admission, SettleRequest } from '../admission.js';
import type { CircuitState, CircuitStatus } from '../circuits.js';

const { HALF_OPEN_RETRY_MS } = ADMISSION_CONSTANTS;

interface Breaker {
  state: CircuitState;
  failures: number;
  reopensAt: number;
  /** The probe slot of a half-open breaker is taken until then; a lease, so a crashed probe cannot wedge it. */
  probeUntil: number;
}

/** Breakers (lua/includes/breaker.lua for Redis); a scope with no entry is closed. */
export class MemoryBreakers {
  private readonly breakers = new Map<string, Breaker>();

  /** `circuit_open` stops the call; otherwise whether it goes as the probe. */
  check(scope: string, now: number): Extract<Admission, { outcome: 'circuit_open' }> | boolean {
    const breaker = this.breakers.get(scope);
    if (breaker?.state === 'open') {
      if (now < breaker.reopensAt) return { outcome: 'circuit_open', retryAfterMs: breaker.reopensAt - now };
      return true;
    }
    if (breaker?.state === 'half_open') {
      if (breaker.probeUntil > now)
        return { outcome: 'circuit_open', retryAfterMs: Math.min(breaker.probeUntil - now, HALF_OPEN_RETRY_MS) };
      return true;
    }
    return false;
  }

  /** A lease of one recovery period: a probe that never reports counts as a failed one. */
  takeProbe(scope: string, recoveryMs: number, now: number): void {
    const breaker = this.breakers.get(scope);
    if (!breaker) return;
    breaker.state = 'half_open';
    breaker.probeUntil = now + recoveryMs;
  }

  record(b: SettleRequest['breaker'], now: number): void {
    const current = this.breakers.get(b.scope);
    // A call admitted before the breaker opened, reporting late: only the probe moves an open breaker.
    if (current && current.state !== 'closed' && !b.probe) return;
    if (b.outcome === 'success') {
      this.breakers.delete(b.scope);
    } else if (b.outcome === 'failure') {
      const next: Breaker = current ?? { state: 'closed', failures: 0, reopensAt: 0, probeUntil: 0 };
      next.failures += 1;
      if (b.probe || next.failures >= b.failureThreshold) {
        next.state = 'open';
        next.reopensAt = now + b.recoveryMs;
        next.probeUntil = 0;
      }
      this.breakers.set(b.scope, next);
    } else if (b.probe && current) {
      current.probeUntil = 0;
    }
  }

  view(scope: string, now: number): CircuitStatus {
    const b = this.breakers.get(scope);
    return b ? circuitView(scope, b.state, b.failures, b.reopensAt, now) : circuitView(scope, 'closed', 0, 0, now);
  }

  reset(scope: string): void {
    this.breakers.delete(scope);
  }
}
