import { drive, type LoadPlan, type Sample } from './load.js';
import { summarize, type Cell } from './summary.js';
import type { Target, TargetName } from './targets.js';

export interface MeasureSettings {
  durationS: number;
  warmupS: number;
  rounds: number;
  connections: number[];
}

/** Runs of the targets at every connection count; the median of each target's rounds per count. */
export type Measure = (
  targets: readonly Target[],
  label: string,
  planFor: (target: Target, connections: number, durationS: number) => LoadPlan,
) => Promise<Cell[]>;

/** Between runs, so one target's leftover work (GC, closing sockets) does not fall into the next one's run. */
const PAUSE_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Warm-up, then at each connection count rounds of timed runs with the targets alternating. */
export function measurer(settings: MeasureSettings, log: (line: string) => void): Measure {
  return async (targets, label, planFor) => {
    if (settings.warmupS > 0) {
      for (const target of targets) await drive(planFor(target, Math.max(...settings.connections), settings.warmupS));
    }
    const cells: Cell[] = [];
    for (const connections of settings.connections) {
      const rounds = new Map<TargetName, Sample[]>();
      for (let round = 0; round < settings.rounds; round++) {
        // Each round starts at the next target, so no target always runs right after the same one.
        const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
        for (const target of order) {
          await sleep(PAUSE_MS);
          const sample = await drive(planFor(target, connections, settings.durationS));
          rounds.set(target.name, [...(rounds.get(target.name) ?? []), sample]);
          const cpu = Number.isNaN(sample.cpuUsPerRequest)
            ? ''
            : `, ${Math.round(sample.cpuUsPerRequest)} CPU µs/req, GC ${(sample.gcShare * 100).toFixed(1)} %, ${sample.markCompactsPerS.toFixed(1)} mark-compacts/s`;
          log(
            `${label} ${connections} conn. round ${round + 1}/${settings.rounds} ${target.name}: ${Math.round(sample.requestsPerS)} req/s, p99 ${sample.p99Ms.toFixed(2)} ms${cpu}`,
          );
        }
      }
      const cell: Cell = { connections, targets: {} };
      for (const target of targets) cell.targets[target.name] = summarize(rounds.get(target.name)!);
      cells.push(cell);
    }
    return cells;
  };
}
