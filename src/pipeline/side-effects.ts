import type { RegisteredTool } from '../registry/registry.js';

/**
 * Whether a call of the tool may change something: its `sideEffects`, else not concurrency-safe. Such a call is replayed by call id,
 * and its audit record is stored before it is answered.
 */
export function hasSideEffects(entry: RegisteredTool): boolean {
  return entry.tool.sideEffects ?? !entry.concurrencySafe;
}
