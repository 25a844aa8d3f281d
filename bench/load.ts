import autocannon from 'autocannon';

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
}

/** One timed run against one target. Latencies are of a whole scenario request (an MCP cycle's calls summed). */
export interface Sample {
  requestsPerS: number;
  callsPerS: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses other than 2xx (or the plan's status), and socket errors or timeouts: both must be 0 for a valid run. */
  non2xx: number;
  errors: number;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Drive one target with autocannon. Latency comes from its per-response event
 * (fractional milliseconds) rather than its histogram, which keeps whole
 * milliseconds only: too coarse for sub-millisecond requests.
 */
export function drive(plan: LoadPlan): Promise<Sample> {
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
        resolve({
          requestsPerS: latencies.length / result.duration,
          callsPerS: ((responses - non2xx) * callsPerHttp) / result.duration,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          requests: latencies.length,
          non2xx,
          errors: result.errors,
        });
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
