import autocannon from 'autocannon';
import type { ProcessUsage } from '../targets/child.js';

export interface LoadPlan {
  url: string;
  connections: number;
  durationS: number;
  /**
   * The HTTP requests that make one scenario request, sent in order on each
   * connection: one POST /execute, or one MCP tools/call per call.
   */
  cycle: autocannon.Request[];
  callsPerRequest: number;
  /** The status every response must have; any 2xx when absent. */
  status?: number;
  /** The target's CPU time and GC pauses so far: read before and after the run for `cpuUsPerRequest` and the GC figures. */
  usage?: () => Promise<ProcessUsage>;
}

/** One timed run against one target. Latencies are of a whole scenario request (an MCP cycle's calls summed). */
export interface Sample {
  requestsPerS: number;
  callsPerS: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /**
   * The target process's CPU time (every thread, user and system) over the
   * run, per scenario request it was sent; NaN when not measured. Requests
   * still in flight when the run stops are counted, and given time to finish.
   */
  cpuUsPerRequest: number;
  /**
   * The garbage collector's pauses of the target's main thread over its CPU
   * time, and its full (mark-compact) collections per second, over the same
   * span; NaN when not measured. A heap that has fallen into collecting back
   * to back shows here first (docs/performance-notebook.md: the 64 KB read buffer).
   */
  gcShare: number;
  markCompactsPerS: number;
  /** Responses other than 2xx (or the plan's status), and socket errors or timeouts: both must be 0 for a valid run. */
  non2xx: number;
  errors: number;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** After a run: long enough for the requests in flight when it stopped to finish, so their CPU time falls inside the count. */
const SETTLE_MS = 250;

/**
 * Drive one target with autocannon. Latency comes from its per-response event
 * (fractional milliseconds) rather than its histogram, which keeps whole
 * milliseconds only: too coarse for sub-millisecond requests.
 */
export async function drive(plan: LoadPlan): Promise<Sample> {
  const before = await plan.usage?.();
  const started = performance.now();
  const { sample, sent } = await run(plan);
  if (before === undefined || !plan.usage) return sample;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = await plan.usage();
  const cpuUs = after.cpuUs - before.cpuUs;
  return {
    ...sample,
    cpuUsPerRequest: cpuUs / (sent / plan.cycle.length),
    gcShare: (after.gcPauseUs - before.gcPauseUs) / cpuUs,
    markCompactsPerS: (after.markCompacts - before.markCompacts) / ((performance.now() - started) / 1000),
  };
}

/** The timed run, and how many HTTP requests autocannon sent (those in flight at the end included). */
function run(plan: LoadPlan): Promise<{ sample: Sample; sent: number }> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const open = new Map<object, { sent: number; sum: number }>();
    let responses = 0;
    let non2xx = 0;
    const instance = autocannon(
      { url: plan.url, connections: plan.connections, duration: plan.durationS, requests: plan.cycle, pipelining: 1 },
      (err: unknown, result: autocannon.Result) => {
        if (err) {
          reject(err);
          return;
        }
        const sorted = Float64Array.from(latencies).sort();
        const callsPerHttp = plan.callsPerRequest / plan.cycle.length;
        const sample: Sample = {
          requestsPerS: latencies.length / result.duration,
          callsPerS: ((responses - non2xx) * callsPerHttp) / result.duration,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          requests: latencies.length,
          cpuUsPerRequest: Number.NaN,
          gcShare: Number.NaN,
          markCompactsPerS: Number.NaN,
          non2xx,
          errors: result.errors,
        };
        resolve({ sample, sent: result.requests.sent });
      },
    );
    instance.on('response', (client, statusCode, _bytes, responseTime) => {
      responses++;
      if (plan.status === undefined ? statusCode < 200 || statusCode >= 300 : statusCode !== plan.status) non2xx++;
      let cycle = open.get(client);
      if (!cycle) open.set(client, (cycle = { sent: 0, sum: 0 }));
      cycle.sum += responseTime;
      if (++cycle.sent === plan.cycle.length) {
        latencies.push(cycle.sum);
        cycle.sent = 0;
        cycle.sum = 0;
      }
    });
  });
}
