import { createHook } from 'node:async_hooks';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';

/** What a target process counts, for the runner to check that no call failed under load. */
export interface TargetStats {
  toolCalls: number;
  toolErrors: number;
  /** The process's resident set size when asked, after the run. */
  rssBytes: number;
}

/**
 * What the process has used since it started: CPU time of all its threads
 * (user and system), and the garbage collector's pauses of the main thread,
 * with how many of them were full (mark-compact) collections.
 */
export interface ProcessUsage {
  cpuUs: number;
  gcPauseUs: number;
  markCompacts: number;
}

/** V8's CPU profiler, or its sampling heap profiler counting every allocation (those collected since included). */
export type ProfileKind = 'cpu' | 'heap';

/** The heap profiler's mean bytes between samples: small enough for the few hundred bytes of a request's objects. */
const HEAP_SAMPLING_BYTES = 256;

export type ParentMessage =
  | { type: 'stats' }
  | { type: 'usage' }
  | { type: 'stop' }
  | { type: 'profile-start'; kind: ProfileKind }
  | { type: 'profile-stop'; kind: ProfileKind; file: string }
  | { type: 'resources-start' }
  | { type: 'resources-stop' };
export type ChildMessage =
  | { type: 'ready'; port: number }
  | { type: 'stats'; stats: TargetStats }
  | { type: 'usage'; usage: ProcessUsage }
  | { type: 'profiled' }
  | { type: 'resources'; created: Record<string, number> };

export interface RunningTarget {
  port: number;
  stats(): Promise<Omit<TargetStats, 'rssBytes'>>;
  close(): Promise<void>;
}

/**
 * The child side of a target process: report the port over IPC, answer stats
 * and CPU-time requests, close and exit on `stop`, and run V8's CPU profiler (the one
 * `node --cpu-prof` drives) or its sampling heap profiler between `profile-start`
 * and `profile-stop`, so the profile holds the timed run only, not start-up and
 * module loading. Between
 * `resources-start` and `resources-stop` it counts the async resources created,
 * by type (which of them are thread-pool work: see syscalls.ts); the hook is
 * off otherwise, as async hooks slow every promise down. A runner that dies
 * takes its children along (the IPC channel closes).
 */
export async function serveTarget(start: () => Promise<RunningTarget>): Promise<void> {
  const send = (message: ChildMessage) => process.send!(message);
  const target = await start();
  const profiler = new Session();
  const gc = { pauseUs: 0, markCompacts: 0 };
  new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) {
      gc.pauseUs += entry.duration * 1000;
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.markCompacts++;
    }
  }).observe({ entryTypes: ['gc'] });
  let created: Record<string, number> = {};
  const resources = createHook({
    init(_id, type) {
      created[type] = (created[type] ?? 0) + 1;
    },
  });
  process.on('message', (message: ParentMessage) => {
    switch (message.type) {
      case 'stats':
        void target.stats().then((stats) => send({ type: 'stats', stats: { ...stats, rssBytes: process.memoryUsage().rss } }));
        break;
      case 'usage': {
        const { user, system } = process.cpuUsage();
        send({ type: 'usage', usage: { cpuUs: user + system, gcPauseUs: gc.pauseUs, markCompacts: gc.markCompacts } });
        break;
      }
      case 'resources-start':
        created = {};
        send({ type: 'resources', created });
        resources.enable();
        break;
      case 'resources-stop':
        resources.disable();
        send({ type: 'resources', created });
        break;
      case 'profile-start':
        profiler.connect();
        void (
          message.kind === 'cpu'
            ? profiler.post('Profiler.enable').then(() => profiler.post('Profiler.start'))
            : profiler.post('HeapProfiler.enable').then(() =>
                profiler.post('HeapProfiler.startSampling', {
                  samplingInterval: HEAP_SAMPLING_BYTES,
                  includeObjectsCollectedByMajorGC: true,
                  includeObjectsCollectedByMinorGC: true,
                }),
              )
        ).then(() => send({ type: 'profiled' }));
        break;
      case 'profile-stop':
        void (message.kind === 'cpu' ? profiler.post('Profiler.stop') : profiler.post('HeapProfiler.stopSampling'))
          .then(({ profile }) => writeFile(message.file, JSON.stringify(profile)))
          .then(() => send({ type: 'profiled' }));
        break;
      case 'stop':
        void target.close().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => process.exit(1));
  send({ type: 'ready', port: target.port });
}

/** The child's options, passed by the runner as one JSON argument. */
export function childOptions<T>(): T {
  return JSON.parse(process.argv[2] ?? '{}') as T;
}
