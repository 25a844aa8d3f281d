export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitStatus {
  scope: string;
  state: CircuitState;
  failures: number;
  /** When an open breaker lets its probe through (epoch ms); null unless open. */
  reopens_at: number | null;
}

/** Breakers as operators and the catalog see them; admission opens and closes them. */
export interface CircuitStore {
  circuits(scopes: string[], now: number): Promise<CircuitStatus[]>;
  resetCircuit(scope: string): Promise<void>;
}

/**
 * A stored breaker as callers see it, the same from both stores: an open
 * breaker past its recovery time is half open (its probe may go), and only
 * an open one says when it reopens. A scope with no breaker stored is
 * `closed` with no failures.
 */
export function circuitView(scope: string, state: CircuitState, failures: number, reopensAt: number, now: number): CircuitStatus {
  if (state !== 'open') return { scope, state, failures, reopens_at: null };
  return now >= reopensAt
    ? { scope, state: 'half_open', failures, reopens_at: null }
    : { scope, state: 'open', failures, reopens_at: reopensAt };
}
