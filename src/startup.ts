import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { webhookUrlProblem } from './approvals/index.js';
import { AuditTrail, createAuditStore, replicaName } from './audit/index.js';
import { auditSettings } from './config/audit-schema.js';
import { acceptConfig, ConfigError, type ConfigReport } from './config/load.js';
import type { Config } from './config/schema.js';
import type { Metrics } from './observability/metrics.js';
import type { TracingSettings } from './observability/spans.js';
import { tracingSettings } from './observability/tracing.js';
import { Outage } from './pipeline/outage.js';
import { localReachProblems, upstreamReachProblems, type ReachInput } from './policy/index.js';
import { createRegistry, registryDefaults, type ToolRegistry } from './registry/registry.js';
import { systemClock } from './shared/clock.js';
import { createSpillStore, refusesStartup } from './spill/index.js';
import type { SpillStore } from './spill/spill-store.js';
import type { HttpDispatchers } from './tools/http/index.js';
import { inspectTools, type ToolSet } from './tools/index.js';
import { startMcpServers, type McpServers } from './tools/mcp/start.js';
import { loadOpenApiSources } from './tools/openapi/index.js';
import type { Tool } from './tools/tool.js';

/** What a configuration that can be served gives the server. */
interface Prepared {
  config: Config;
  workspace: string;
  registry: ToolRegistry;
  spill: SpillStore;
  mcp: McpServers;
  /** Where to export traces; absent with tracing off. */
  tracing?: TracingSettings;
  /** This process's audit chain, opened; absent with `audit: false`. */
  audit?: AuditTrail;
}

/** What start-up reads besides the configuration: the environment, and the parts the process made. */
interface StartDeps {
  env: NodeJS.ProcessEnv;
  dispatchers: HttpDispatchers;
  metrics: Metrics;
  logger: Logger;
}

const AUDIT_OUTAGE = {
  down: 'audit trail cannot be written: side-effecting calls answer AUDIT_UNAVAILABLE and do not run; read-only calls run, their records held (audit.max_pending)',
  up: 'audit trail written again',
};

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** The workspace, made when `create`; a path that cannot be made is a problem. */
function makeWorkspace(config: Config, create: boolean, problems: string[]): string {
  const workspace = resolve(config.workspace);
  if (!create) return workspace;
  try {
    mkdirSync(workspace, { recursive: true });
  } catch (err) {
    problems.push(`workspace ${workspace}: ${(err as Error).message}`);
  }
  return workspace;
}

/**
 * The tools the configuration serves without its MCP servers (the OpenAPI
 * documents' fetched and read here: one that cannot be is a problem, an
 * operation that cannot be a tool is logged and left out), and the policy
 * rules and toolsets that can be checked against them.
 */
async function prepareTools(
  report: ConfigReport,
  workspace: string,
  reach: ReachInput,
  deps: StartDeps,
  problems: string[],
): Promise<{ set: ToolSet; imported: Tool[]; registry: ToolRegistry } | undefined> {
  const { config } = report;
  const { env, dispatchers } = deps;
  try {
    // Checking the rest needs only the built-ins' names and schemas: without a workspace (a problem already
    // listed) they are built on a stand-in root, and start-up stops before any of them could run.
    const set = inspectTools(config, { workspace: isDirectory(workspace) ? workspace : tmpdir(), env, dispatchers });
    const openapi = await loadOpenApiSources(config.openapi_sources, {
      dispatchers,
      env,
      baseDir: report.baseDir,
      taken: new Set(set.tools.map((t) => t.name)),
    });
    for (const line of openapi.skipped)
      deps.logger.warn({ problem: line }, 'OpenAPI operation left out; the rest of its document is served');
    const imported = openapi.tools;
    const served = [...set.tools, ...imported];
    problems.push(
      ...set.problems,
      ...openapi.problems,
      ...localReachProblems(
        reach,
        [...set.builtins, ...imported],
        served.map((t) => t.name),
      ),
    );
    return { set, imported, registry: createRegistry(served, registryDefaults(config)) };
  } catch (err) {
    problems.push(...(err as Error).message.split('\n'));
    return undefined;
  }
}

/** The spill store and the S3 settings it and the audit store share; a store that refuses (not one only unreachable) is a problem. */
async function openSpill(config: Config, env: NodeJS.ProcessEnv, metrics: Metrics, create: boolean, problems: string[]) {
  let spill: SpillStore | undefined;
  const s3 = {
    region: config.spill.s3_region,
    timeoutMs: config.spill.timeout_ms,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN },
    ...(config.spill.s3_endpoint && { endpoint: config.spill.s3_endpoint }),
  };
  try {
    spill = createSpillStore(config.spill.url, {
      ttlMs: config.spill.ttl_ms,
      clock: systemClock,
      tenantQuotaBytes: config.spill.tenant_quota_bytes,
      onQuotaRemoval: () => metrics.spillQuotaRemovals.inc(),
      s3,
    });
    if (create) await spill.ping();
  } catch (err) {
    // Like Redis, a store that is only unreachable does not stop start-up (/readyz says so until it answers); one that refuses does.
    if (!spill || refusesStartup(err)) problems.push(`spill.url ${config.spill.url}: ${(err as Error).message}`);
  }
  return { spill, s3 };
}

/**
 * This process's audit chain, opened when `create`; unlike the spill store, one that cannot be written at start-up is a problem:
 * side-effecting calls could not run.
 */
async function openAudit(
  config: Config,
  s3: Parameters<typeof createAuditStore>[2],
  role: 'server' | 'worker',
  deps: StartDeps,
  create: boolean,
  problems: string[],
): Promise<AuditTrail | undefined> {
  const audit = auditSettings(config.audit);
  if (!audit) {
    deps.logger.info('audit: false: no audit trail is written');
    return undefined;
  }
  try {
    const store = createAuditStore(audit.url, audit.rotate_bytes, s3);
    if (!create) return undefined;
    const chain = await store.open(replicaName(audit.replica, role));
    await store.ping();
    const health = new Outage(deps.logger, deps.metrics.auditFailures, AUDIT_OUTAGE);
    const onDropped = () => deps.metrics.auditUnrecorded.inc({ kind: 'dropped' });
    return new AuditTrail({ store, chain, clock: systemClock, flushMs: audit.flush_ms, maxPending: audit.max_pending, health, onDropped });
  } catch (err) {
    problems.push(`audit.url ${audit.url}: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * Every start-up check in one pass, so that one run lists every problem:
 * the configuration's own, then the tools (prepareTools), the policy rules
 * and toolsets against them, and the workspace, spill store and audit
 * trail, each on whatever parts of the configuration are valid; then, for a
 * configuration without problems, the upstream MCP servers
 * (startMcpServers) and the rules and toolsets that may name their tools.
 * Throws ConfigError listing them all.
 *
 * A configuration with problems of its own creates nothing: the workspace
 * and the spill directory are made and written to (once, so that a path the
 * process cannot write is refused before the port opens rather than found by
 * /readyz later) only when it has none.
 */
export async function prepare(
  report: ConfigReport,
  env: NodeJS.ProcessEnv,
  dispatchers: HttpDispatchers,
  metrics: Metrics,
  logger: Logger,
  role: 'server' | 'worker' = 'server',
): Promise<Prepared> {
  const { config } = report;
  const deps: StartDeps = { env, dispatchers, metrics, logger };
  const traces = tracingSettings(env);
  const webhook = webhookUrlProblem(config.approvals);
  const problems = [...report.problems, ...traces.problems, ...(webhook ? [webhook] : [])];
  const create = problems.length === 0;
  const workspace = makeWorkspace(config, create, problems);
  const reach: ReachInput = {
    written: report.written,
    toolsets: config.toolsets,
    prefixes: config.mcp_servers.map((server) => server.prefix),
  };
  const tools = await prepareTools(report, workspace, reach, deps, problems);
  const { spill, s3 } = await openSpill(config, env, metrics, create, problems);
  const trail = await openAudit(config, s3, role, deps, create, problems);
  if (problems.length > 0 || !tools || !spill) {
    await trail?.close();
    throw new ConfigError(problems);
  }
  const { set, imported, registry } = tools;
  logBash(set, logger);
  // Last, and only for a configuration that can be served: no server is started for one that cannot.
  const { mcp, problems: mcpProblems } = await startMcpServers(config, registry, deps);
  const answered = config.mcp_servers.map((server) => mcp.supervisors.some((s) => s.server === server.name && s.connected()));
  const upstreamTools = registry
    .list()
    .filter((e) => e.tool.upstream)
    .map((e) => e.tool);
  const names = registry.list().map((e) => e.name);
  mcpProblems.push(...upstreamReachProblems(reach, answered, [...set.builtins, ...imported, ...upstreamTools], names));
  if (mcpProblems.length > 0) {
    await mcp.close();
    await trail?.close();
    throw new ConfigError(mcpProblems);
  }
  return {
    config: acceptConfig(report),
    workspace,
    registry,
    spill,
    mcp,
    ...(traces.settings && { tracing: traces.settings }),
    ...(trail && { audit: trail }),
  };
}

/** Which sandbox Bash commands run in, said once at start-up; running without one is a warning. */
function logBash(set: ToolSet, logger: Logger): void {
  if (!set.bash) return;
  const { sandbox, warnings } = set.bash;
  for (const warning of warnings) logger.warn({ tool: 'Bash', sandbox: sandbox.mode }, warning);
  const how = sandbox.mode === 'bwrap' ? 'in bubblewrap' : `WITHOUT a sandbox${sandbox.fail_closed ? ', each after an approval' : ''}`;
  logger.info(
    { tool: 'Bash', sandbox: sandbox.mode, sandbox_setting: sandbox.setting, ...(sandbox.fail_closed && { fail_closed: true }) },
    `Bash enabled: commands run ${how}`,
  );
}
