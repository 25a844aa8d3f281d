import type { CircuitStatus } from '../state/state-store.js';

/** A tool whose breaker is open is hidden: from GET /tools, /mcp's tools/list and tool_search alike. */
export function hides(circuit: CircuitStatus): boolean {
  return circuit.state === 'open';
}
