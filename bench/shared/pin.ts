import { spawnSync } from 'node:child_process';

/**
 * Which CPUs the servers run on and which everything else does, as `taskset
 * -c` lists. A server pinned to one CPU pays for all its own work there: its
 * thread-pool jobs, garbage collection and event loop compete with one
 * another, as they do on a replica sized by CPU, instead of borrowing the
 * load generator's CPU.
 */
export interface Pinning {
  /** The one CPU every target server runs on. */
  server: string;
  /** The runner (with the load generator in it), redis-server, strace and the rest. */
  others: string;
}

/** CPU numbers of a `taskset` list such as `0-3,6`. */
export function cpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [from, to] = part.trim().split('-').map(Number);
    const last = to ?? from;
    return from === undefined || last === undefined || !Number.isInteger(from) || !Number.isInteger(last)
      ? []
      : Array.from({ length: last - from + 1 }, (_, i) => from + i);
  });
}

/**
 * The last CPU this process may run on for the servers, the others for the
 * runner; an explanation instead when pinning cannot work here (no taskset,
 * one CPU only).
 */
export function choosePinning(): Pinning | string {
  const probe = spawnSync('taskset', ['-p', '-c', String(process.pid)], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return 'no taskset on PATH (util-linux); run with --no-pin';
  const cpus = cpuList(probe.stdout.slice(probe.stdout.lastIndexOf(':') + 1));
  if (cpus.length < 2) return `only CPU ${cpus.join(',')} is available: a pinned run needs two; run with --no-pin`;
  return { server: String(cpus.at(-1)), others: cpus.slice(0, -1).join(',') };
}

/** Moves every thread of the runner onto `others`; processes it starts later inherit that. */
export function pinRunner(pinning: Pinning): void {
  const done = spawnSync('taskset', ['-a', '-p', '-c', pinning.others, String(process.pid)], { encoding: 'utf8' });
  if (done.error || done.status !== 0) throw new Error(`taskset could not pin the runner: ${done.stderr || done.error?.message}`);
}
