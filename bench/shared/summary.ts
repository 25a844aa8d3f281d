import type { Sample } from './load.js';
import type { TargetName } from './targets.js';

/** The median of each figure over the rounds, with the rounds kept for the JSON. */
export interface Summary extends Sample {
  rounds: Sample[];
}

/** One connection count of a scenario: each target's summary. */
export interface Cell {
  connections: number;
  targets: Partial<Record<TargetName, Summary>>;
}

/** The share of one CPU the target used while it ran: its CPU time per request times its requests/s. */
export function busy(s: Sample): number {
  return (s.cpuUsPerRequest * s.requestsPerS) / 1e6;
}

/** The median of the figures that were measured; NaN when none was. */
function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(rounds: Sample[]): Summary {
  const of = (key: keyof Sample) => median(rounds.map((r) => r[key]));
  return {
    requestsPerS: of('requestsPerS'),
    callsPerS: of('callsPerS'),
    p50Ms: of('p50Ms'),
    p99Ms: of('p99Ms'),
    cpuUsPerRequest: of('cpuUsPerRequest'),
    gcShare: of('gcShare'),
    markCompactsPerS: of('markCompactsPerS'),
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    rounds,
  };
}
