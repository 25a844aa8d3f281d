import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BREAKER_STATE_VALUE, type Metrics } from '../observability/metrics.js';
import { scopeOf } from '../pipeline/gates/breaker.js';
import type { PipelineDeps } from '../pipeline/types.js';
import { LOCAL_CALLER } from './auth.js';

const PING_TIMEOUT_MS = 1_000;

async function answers(ping: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The breaker gauge is read from the shared store at scrape time, so every
 * replica reports the fleet's state. With per-tenant breakers it reports
 * each tenant's own (label `tenant`): those of the configured keys, or the
 * local caller's when there are none.
 */
async function refreshBreakerGauge(metrics: Metrics, deps: PipelineDeps): Promise<void> {
  const names = deps.registry.list().map((e) => e.name);
  const keyTenants = deps.config.keys.length > 0 ? [...new Set(deps.config.keys.map((k) => k.tenant))] : [LOCAL_CALLER.tenant];
  const tenants = deps.config.defaults.per_tenant_breakers ? keyTenants : [null];
  const series = tenants.flatMap((tenant) => names.map((tool) => ({ tool, tenant })));
  try {
    const circuits = await deps.state.circuits(series.map((s) => scopeOf(s.tool, s.tenant)), deps.clock.now());
    circuits.forEach((c, i) => {
      const { tool, tenant } = series[i]!;
      metrics.breakerState.set(tenant === null ? { tool } : { tool, tenant }, BREAKER_STATE_VALUE[c.state]);
    });
  } catch {
    // A scrape during a state outage still serves every other metric.
  }
}

export function metricsRoute(metrics: Metrics, deps: PipelineDeps) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/metrics', { schema: { summary: 'Prometheus metrics', hide: false } }, async (_request, reply) => {
      await refreshBreakerGauge(metrics, deps);
      reply.header('content-type', metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  };
}

export function healthRoutes(deps: PipelineDeps) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({
      status: 'ok' as const,
    }));

    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: the state store and the spill store answer',
          response: {
            200: Type.Object({ status: Type.Literal('ready') }),
            503: Type.Object({ status: Type.Literal('not_ready'), failed: Type.Array(Type.String()) }),
          },
        },
      },
      async (_request, reply) => {
        const [state, spill] = await Promise.all([answers(() => deps.state.ping()), answers(() => deps.spill.ping())]);
        const failed = [...(state ? [] : ['state_store']), ...(spill ? [] : ['spill_store'])];
        if (failed.length > 0) return reply.code(503).send({ status: 'not_ready', failed });
        return { status: 'ready' };
      },
    );
  };
}
