import type { PlannedCall } from './types.js';

/**
 * Cut the plan into batches that run in order: consecutive concurrency-safe
 * calls share a batch, every other call is a batch of its own. A call already
 * stopped by a gate does nothing, so it joins whatever batch is open.
 */
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
