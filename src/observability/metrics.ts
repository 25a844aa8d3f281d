import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** On a registry of its own, so several apps can live in one process. */
export interface Metrics {
  registry: Registry;
  toolCalls: Counter<'tool' | 'status' | 'code'>;
  toolDuration: Histogram<'tool'>;
  batchSize: Histogram;
  breakerState: Gauge<'tool' | 'tenant'>;
  truncations: Counter;
  spilledBytes: Counter;
  redactions: Counter<'tool' | 'kind'>;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  stateUnavailable: Counter;
  stateEvictions: Counter<'kind'>;
  spillQuotaRemovals: Counter;
  spillFailures: Counter;
  auditFailures: Counter;
  auditUnrecorded: Counter<'kind'>;
  mcpServerUp: Gauge<'server'>;
  mcpServerReconnects: Counter<'server'>;
  storeUp: Gauge<'store'>;
  approvalsPending: Gauge;
  webhookDeliveries: Counter<'outcome'>;
}

export const BREAKER_STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'toolgate_' });
  const registers = [registry];
  return {
    registry,
    toolCalls: new Counter({
      name: 'toolgate_tool_calls_total',
      help: 'Tool calls by tool, result status and error code (empty when none).',
      labelNames: ['tool', 'status', 'code'],
      registers,
    }),
    toolDuration: new Histogram({
      name: 'toolgate_tool_duration_seconds',
      help: 'Time from admission to result of one tool call.',
      labelNames: ['tool'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60],
      registers,
    }),
    batchSize: new Histogram({
      name: 'toolgate_batch_size',
      help: 'Tool calls per POST /execute request.',
      buckets: [0, 1, 2, 4, 8, 16, 32, 64],
      registers,
    }),
    breakerState: new Gauge({
      name: 'toolgate_breaker_state',
      help: 'Circuit breaker state per tool (and tenant, with per_tenant_breakers): 0 closed, 1 half-open, 2 open.',
      labelNames: ['tool', 'tenant'],
      registers,
    }),
    truncations: new Counter({ name: 'toolgate_truncations_total', help: 'Results cut by an output budget.', registers }),
    spilledBytes: new Counter({
      name: 'toolgate_spilled_bytes_total',
      help: 'Bytes written to the spill store.',
      registers,
    }),
    redactions: new Counter({
      name: 'toolgate_redactions_total',
      help: 'Credentials redacted from tool outputs, by tool and kind (docs/guardrails.md).',
      labelNames: ['tool', 'kind'],
      registers,
    }),
    httpRequests: new Counter({
      name: 'toolgate_http_requests_total',
      help: 'HTTP requests by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'toolgate_http_request_duration_seconds',
      help: 'HTTP request duration by method and route.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers,
    }),
    stateUnavailable: new Counter({
      name: 'toolgate_state_unavailable_total',
      help: 'Operations that found the state store unreachable.',
      registers,
    }),
    stateEvictions: new Counter({
      name: 'toolgate_state_evictions_total',
      help: 'Replay records the in-memory state store evicted to stay within state.memory_max_bytes, by kind (call, request).',
      labelNames: ['kind'],
      registers,
    }),
    spillQuotaRemovals: new Counter({
      name: 'toolgate_spill_quota_removals_total',
      help: 'Spilled outputs removed, oldest first, to keep a tenant within spill.tenant_quota_bytes.',
      registers,
    }),
    auditFailures: new Counter({
      name: 'toolgate_audit_failures_total',
      help: 'Appends to the audit trail that failed.',
      registers,
    }),
    auditUnrecorded: new Counter({
      name: 'toolgate_audit_unrecorded_total',
      help: 'While the audit trail could not be written: read-only calls run (read_only), side-effecting calls refused (refused), records dropped past audit.max_pending (dropped).',
      labelNames: ['kind'],
      registers,
    }),
    spillFailures: new Counter({
      name: 'toolgate_spill_failures_total',
      help: 'Outputs the spill store did not take; each was cut to its budget with no url (spill_error).',
      registers,
    }),
    mcpServerUp: new Gauge({
      name: 'toolgate_mcp_server_up',
      help: 'Whether the gateway is connected to an upstream MCP server (1) or reconnecting to it (0).',
      labelNames: ['server'],
      registers,
    }),
    mcpServerReconnects: new Counter({
      name: 'toolgate_mcp_server_reconnects_total',
      help: 'Reconnect attempts to an upstream MCP server (a stdio server restarted, an HTTP server connected again).',
      labelNames: ['server'],
      registers,
    }),
    storeUp: new Gauge({
      name: 'toolgate_store_up',
      help: 'Whether the store answered a ping at scrape time (1) or not within 1 s (0), by store: state, spill.',
      labelNames: ['store'],
      registers,
    }),
    approvalsPending: new Gauge({
      name: 'toolgate_approvals_pending',
      help: 'Approval requests waiting for a decision, every tenant, read from the state store at scrape time.',
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'toolgate_approval_webhook_deliveries_total',
      help: 'Approvals webhook delivery attempts by outcome: delivered, http_error, network_error, refused, dropped.',
      labelNames: ['outcome'],
      registers,
    }),
  };
}
