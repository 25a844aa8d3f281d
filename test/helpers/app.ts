import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import type { AuditTrail } from '../../src/audit/index.js';
import { configFrom } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { Tracing } from '../../src/observability/spans.js';
import type { ExecutionQueue } from '../../src/queue/index.js';
import { createRegistry, registryDefaults } from '../../src/registry/registry.js';
import { createFsSpillStore } from '../../src/spill/fs.js';
import type { SpillStore } from '../../src/spill/spill-store.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/memory/index.js';
import type { StateStore } from '../../src/state/state-store.js';
import { createHttpDispatchers, type HttpDispatchers } from '../../src/tools/http/index.js';
import { startMcpServers, type McpServers } from '../../src/tools/mcp/start.js';
import { loadTools } from '../../src/tools/index.js';
import type { Tool } from '../../src/tools/tool.js';
import type { WebhookOutbox } from '../../src/webhooks/index.js';
import { createEnvCredentials } from '../../src/tools/credentials.js';
import { createTokenVerifier } from '../../src/identity/index.js';
import { createVault, vaultSettings } from '../../src/vault/index.js';

export interface TestApp {
  app: FastifyInstance;
  clock: ManualClock;
  state: StateStore;
  spill: SpillStore;
  workspace: string;
  config: Config;
  /** Log lines the app wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The config's upstream MCP servers, started and connected (each within its connect_timeout_ms). */
  mcp: McpServers;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Record<string, unknown>;
  /** Extra tools next to the built-ins. */
  tools?: Tool[];
  builtins?: boolean;
  state?: StateStore;
  clock?: ManualClock;
  workspace?: string;
  spillDir?: string;
  /** Replaces the temp-dir spill store, e.g. with one that fails. */
  spill?: SpillStore;
  /** Environment for `${VAR}` in HTTP tool headers. */
  env?: NodeJS.ProcessEnv;
  /** The HTTP tools' pools; tests that call HTTP tools pass tripwired ones (test/integration/http-tools/helpers.ts). */
  dispatchers?: HttpDispatchers;
  /** The async queue (test/helpers/async.ts); the test closes it. */
  executions?: ExecutionQueue;
  /** Tracing on (src/observability/tracing.ts); the test shuts it down. */
  tracing?: Tracing;
  /** Where approval events wait for the webhook (`approvals.webhook_url`); the test closes it. */
  outbox?: WebhookOutbox;
  /** The audit trail (test/suites/audit-store.suite.ts openTrail); the test closes it. */
  audit?: AuditTrail;
}

const BUILTIN_NAMES = new Set(['Read', 'Write', 'Edit', 'Glob', 'Grep', 'LS']);

/** An app on memory state (unless given), a manual clock, a temp workspace and a temp spill directory. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const workspace = options.workspace ?? (await mkdtemp(join(tmpdir(), 'toolgate-ws-')));
  const spillDir = options.spillDir ?? (await mkdtemp(join(tmpdir(), 'toolgate-spill-')));
  const clock = options.clock ?? new ManualClock();
  const config = configFrom({ workspace, ...options.config });
  const state = options.state ?? createMemoryStateStore({ clock });
  const spill = options.spill ?? createFsSpillStore({ dir: spillDir, ttlMs: config.spill.ttl_ms, clock });
  const dispatchers = options.dispatchers ?? createHttpDispatchers();
  const credentials = createEnvCredentials(options.env ?? {});
  const configured = loadTools(config, { workspace, credentials, dispatchers });
  const tools = [
    ...(options.builtins === false ? configured.filter((tool) => !BUILTIN_NAMES.has(tool.name)) : configured),
    ...(options.tools ?? []),
  ];
  const registry = createRegistry(tools, registryDefaults(config));
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  const metrics = createMetrics({ processMetrics: false });
  const { mcp, problems } = await startMcpServers(config, registry, { credentials, dispatchers, metrics, logger });
  if (problems.length > 0) throw new Error(problems.join('\n'));
  // auth.oauth's issuers are discovered as start-up does; one that cannot be is thrown, as start-up refuses it.
  const oauth =
    config.auth.oauth.length > 0 ? await createTokenVerifier(config.auth.oauth, { clock, logger, env: options.env ?? {} }) : undefined;
  if (oauth && oauth.problems.length > 0) throw new Error(oauth.problems.join('\n'));
  // oauth_providers' vault as start-up builds it, its settings from `env`: a problem is thrown, as start-up refuses it.
  const grants = vaultSettings(config, options.env ?? {});
  if (grants.problems.length > 0) throw new Error(grants.problems.join('\n'));
  const vault = grants.settings && createVault({ settings: grants.settings, store: state.grants, clock, logger, dispatchers });
  const app = await buildApp(
    {
      state,
      spill,
      registry,
      clock,
      logger,
      metrics,
      credentials,
      upstreams: mcp.supervisors,
      ...(oauth && { tokens: oauth.verifier }),
      ...(vault && { vault }),
      ...(options.executions && { executions: options.executions }),
      ...(options.tracing && { tracing: options.tracing }),
      ...(options.outbox && { outbox: options.outbox }),
      ...(options.audit && { audit: options.audit }),
    },
    config,
  );
  await app.ready();
  return {
    app,
    clock,
    state,
    spill,
    workspace,
    config,
    logs,
    mcp,
    async close() {
      await app.close();
      oauth?.verifier.close();
      await mcp.close();
      await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
      if (!options.state) await state.close();
      if (!options.workspace) await rm(workspace, { recursive: true, force: true });
      if (!options.spillDir) await rm(spillDir, { recursive: true, force: true });
    },
  };
}

/** POST /execute with a JSON body; returns the parsed response. */
export async function execute(app: FastifyInstance, body: unknown, headers: Record<string, string> = {}) {
  const response = await app.inject({ method: 'POST', url: '/execute', payload: body as object, headers });
  return { status: response.statusCode, body: response.json() as Record<string, any>, headers: response.headers };
}
