import type { FastifyBaseLogger } from 'fastify';
import { approvalEvents } from '../approvals/index.js';
import type { AuditTrail } from '../audit/index.js';
import type { Config } from '../config/schema.js';
import type { Metrics } from '../observability/metrics.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { SpillStore } from '../spill/spill-store.js';
import type { Clock } from '../shared/clock.js';
import type { StateStore } from '../state/state-store.js';
import type { WebhookOutbox } from '../webhooks/index.js';
import { createGuardrails } from '../guardrails/index.js';
import { createCatalog } from '../catalog/catalog.js';
import { policyOf } from '../policy/index.js';
import { createEnvCredentials, type CredentialProvider } from '../tools/credentials.js';
import type { UpstreamOffering } from '../tools/mcp/offers.js';
import { createWorkspaces, workspaceLayout } from '../tools/workspaces.js';
import { createOffers } from './offers.js';
import { circuitsFor } from './circuits.js';
import { Outage, type OutageLines } from './outage.js';
import type { PipelineDeps } from './types.js';

const STATE_OUTAGE: OutageLines = {
  down: 'state store unreachable: read-only calls keep running; calls that need state answer STATE_UNAVAILABLE',
  up: 'state store reachable again',
};

const SPILL_OUTAGE: OutageLines = {
  down: 'spill store failing: oversized outputs are cut to their budget with no url (spill_error) until it answers again',
  up: 'spill store answering again',
};

/** What the pipeline is built from; the app and a queue worker each pass their own. */
interface PipelineParts {
  registry: ToolRegistry;
  state: StateStore;
  spill: SpillStore;
  clock: Clock;
  logger: FastifyBaseLogger;
  metrics: Metrics;
  /** Where approval events wait for the webhook (`approvals.webhook_url`); none without one. */
  outbox?: WebhookOutbox;
  /** This process's audit chain; none with `audit: false`. */
  audit?: AuditTrail;
  /** What start-up checked the tools' `${NAME}` against; without it no tool has a secret. */
  credentials?: CredentialProvider;
  /** The upstream MCP servers, for their resources and prompts. */
  upstreams?: readonly UpstreamOffering[];
}

/** The pipeline's dependencies, built once per process part that runs batches: the same for a request and a queued job. */
export function createPipelineDeps(parts: PipelineParts, config: Config): PipelineDeps {
  const webhook = config.approvals.webhook_url;
  const deps: PipelineDeps = {
    ...(parts.outbox && webhook !== undefined && { approvalEvents: approvalEvents(parts.outbox, webhook) }),
    ...(parts.audit && { audit: parts.audit }),
    registry: parts.registry,
    state: parts.state,
    spill: parts.spill,
    clock: parts.clock,
    metrics: parts.metrics,
    policy: policyOf(config.policy.rules),
    health: new Outage(parts.logger, parts.metrics.stateUnavailable, STATE_OUTAGE),
    spillHealth: new Outage(parts.logger, parts.metrics.spillFailures, SPILL_OUTAGE),
    guardrails: createGuardrails(config.guardrails),
    workspaces: createWorkspaces(workspaceLayout(config)),
    credentials: parts.credentials ?? createEnvCredentials({}),
    // Asked only after these deps are built: it reads the breakers through them.
    catalog: createCatalog(parts.registry, (entries, caller, log) => circuitsFor(entries, caller, deps, log)),
    config: {
      limits: config.limits,
      state: config.state,
      defaults: config.defaults,
      keys: config.keys,
      toolsets: config.toolsets,
      approvals: config.approvals,
    },
  };
  if (parts.upstreams && parts.upstreams.length > 0) deps.offers = createOffers(parts.upstreams, deps);
  return deps;
}
