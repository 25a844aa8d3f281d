import type { PlannedCall } from './types.js';

/** Batches in order: consecutive concurrency-safe calls (and stopped ones) share one; every other call is its own. */
export function partition(calls: readonly PlannedCall[]): PlannedCall[][] {
  const batches: PlannedCall[][] = [];
  let open: PlannedCall[] | undefined;
  for (const call of calls) {
    const safe = call.failure !== undefined || call.entry!.concurrencySafe;
    if (safe) {
      if (!open) {
        open = [];
        batches.push(open);
      }
      open.push(call);
    } else {
      batches.push([call]);
      open = undefined;
    }
  }
  return batches;
}
