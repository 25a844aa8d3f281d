import { BREAKER_STATE_VALUE, type Metrics } from '../observability/metrics.js';
import { scopeOf } from '../state/breaker-scope.js';
import { sharedBreaker } from '../pipeline/gates/breaker.js';
import type { PipelineDeps } from '../pipeline/types.js';
import { LOCAL_CALLER } from './auth.js';
import { probeStores, within } from './health.js';
import { routes } from './routes.js';

/**
 * The breaker gauge is read from the shared store at scrape time, so every replica reports the fleet's state. A per-tenant breaker is
 * reported for each tenant (label `tenant`): those of the configured keys, or the local caller's when there are none; a shared one once,
 * without the label.
 */
async function refreshBreakerGauge(metrics: Metrics, deps: PipelineDeps): Promise<void> {
  const keyTenants = deps.config.keys.length > 0 ? [...new Set(deps.config.keys.map((k) => k.tenant))] : [LOCAL_CALLER.tenant];
  const series = deps.registry
    .list()
    .flatMap((entry) => (sharedBreaker(entry, deps) ? [null] : keyTenants).map((tenant) => ({ tool: entry.name, tenant })));
  try {
    const circuits = await deps.state.circuits(
      series.map((s) => scopeOf(s.tool, s.tenant)),
      deps.clock.now(),
    );
    circuits.forEach((c, i) => {
      const { tool, tenant } = series[i]!;
      metrics.breakerState.set(tenant === null ? { tool } : { tool, tenant }, BREAKER_STATE_VALUE[c.state]);
    });
  } catch {
    // A scrape during a state outage still serves every other metric.
  }
}

/** The stores as /readyz sees them, so an alert can say which one is away even from a replica whose traffic has not touched it yet. */
async function refreshStoreGauges(metrics: Metrics, deps: PipelineDeps): Promise<void> {
  const { state, spill } = await probeStores(deps);
  metrics.storeUp.set({ store: 'state' }, state ? 1 : 0);
  metrics.storeUp.set({ store: 'spill' }, spill ? 1 : 0);
}

/** Every tenant's pending approvals; with the store away NaN (unknown: a gap in a graph), neither 0 nor a stale count. */
async function refreshApprovalsGauge(metrics: Metrics, deps: PipelineDeps): Promise<void> {
  try {
    metrics.approvalsPending.set(await within(() => deps.state.countPendingApprovals(deps.clock.now())));
  } catch {
    metrics.approvalsPending.set(Number.NaN);
  }
}

export function metricsRoute(metrics: Metrics, deps: PipelineDeps) {
  return routes((app) => {
    app.get('/metrics', { schema: { summary: 'Prometheus metrics', hide: false } }, async (_request, reply) => {
      await Promise.all([refreshBreakerGauge(metrics, deps), refreshStoreGauges(metrics, deps), refreshApprovalsGauge(metrics, deps)]);
      reply.header('content-type', metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  });
}
