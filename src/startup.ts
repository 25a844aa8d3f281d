import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { webhookUrlProblem } from './approvals/index.js';
import { AuditTrail, createAuditStore, replicaName, type AuditStore } from './audit/index.js';
import { auditSettings } from './config/audit-schema.js';
import { Outage } from './pipeline/outage.js';
import { acceptConfig, ConfigError, type ConfigReport } from './config/load.js';
import type { Config } from './config/schema.js';
import type { Logger } from 'pino';
import type { Metrics } from './observability/metrics.js';
import { tracingSettings, type TracingSettings } from './observability/tracing.js';
import { toolsetProblems, unreachableRules, type ToolShape } from './policy/index.js';
import { createRegistry, registryDefaults, type ToolRegistry } from './registry/registry.js';
import { createSpillStore, refusesStartup } from './spill/index.js';
import type { SpillStore } from './spill/spill-store.js';
import { systemClock } from './shared/clock.js';
import { createMemoryStateStore } from './state/memory/index.js';
import { createRedisStateStore, redisTopology } from './state/redis/index.js';
import type { StateStore } from './state/state-store.js';
import type { HttpDispatchers } from './tools/http/index.js';
import { inspectTools, type ToolSet } from './tools/index.js';
import { createMcpServers, type McpSupervisor } from './tools/mcp/index.js';
import { loadOpenApiSources } from './tools/openapi/index.js';
import type { Tool } from './tools/tool.js';

/** What a configuration that can be served gives the server. */
export interface Prepared {
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

/** The upstream MCP servers a gateway runs; close them on shutdown (stdio servers' processes end). */
export interface McpServers {
  supervisors: readonly McpSupervisor[];
  close(): Promise<void>;
}

export interface McpStartDeps {
  env: NodeJS.ProcessEnv;
  dispatchers: HttpDispatchers;
  metrics: Metrics;
  logger: Logger;
}

/**
 * Start every configured MCP server and keep `registry` in step with its
 * tools. Waits, each server up to its `connect_timeout_ms`, for the first
 * tool lists: a name in them that a provider refuses or another tool holds
 * is a start-up problem; a schema ajv rejects is logged and that tool left
 * out. A server not up by then stops nothing: its tools join when it
 * answers, and what is refused later is logged. On problems every server
 * is closed again.
 */
export async function startMcpServers(config: Config, registry: ToolRegistry, deps: McpStartDeps): Promise<{ mcp: McpServers; problems: string[] }> {
  const { supervisors, problems } = createMcpServers(config.mcp_servers, { ...deps, log: deps.logger });
  const mcp: McpServers = { supervisors, close: async () => void (await Promise.all(supervisors.map((s) => s.close()))) };
  if (problems.length > 0) return { mcp, problems };
  let starting = true;
  for (const supervisor of supervisors) {
    const log = deps.logger.child({ mcp_server: supervisor.server });
    supervisor.onTools((tools) => {
      const report = registry.setSource(supervisor.server, tools);
      for (const problem of report.invalid) log.warn({ problem }, 'MCP server tool left out: its schema does not compile');
      if (starting) problems.push(...report.refused.map((problem) => `mcp_servers.${supervisor.server}: tool ${problem}`));
      else for (const problem of report.refused) log.error({ problem }, 'MCP server tool left out: its name is refused');
    });
    supervisor.start();
  }
  const timeouts = new Map(config.mcp_servers.map((server) => [server.name, server.connect_timeout_ms]));
  const up = await Promise.all(supervisors.map((s) => s.ready(timeouts.get(s.server)!)));
  starting = false;
  up.forEach((ready, i) => {
    if (!ready) deps.logger.warn({ mcp_server: supervisors[i]!.server }, 'MCP server not up at start-up: its tools join when it answers');
  });
  if (problems.length > 0) await mcp.close();
  return { mcp, problems };
}

/**
 * The tools policy rules may name: every built-in, served or disabled, every tool the file declares,
 * valid or not, the tools of the OpenAPI documents, and those of the MCP servers that answered at start-up.
 */
function ruleTargets(builtins: readonly Tool[], written: readonly unknown[], upstream: readonly Tool[]): ToolShape[] {
  const declared = written.flatMap((tool) =>
    typeof tool === 'object' && tool !== null && typeof (tool as { name?: unknown }).name === 'string'
      ? [{ name: (tool as { name: string }).name, parameters: (tool as { parameters?: unknown }).parameters }]
      : [],
  );
  return [...[...builtins, ...upstream].map((tool) => ({ name: tool.name, parameters: tool.parameters })), ...declared];
}

/**
 * The rules whose `tool` starts with one of `prefixes` (those that may name
 * a tool of an MCP server), or, with `upstream: false`, all the others; a
 * rule left out is `undefined`, so the indexes stay the file's.
 */
function rulesOn(rules: readonly unknown[], prefixes: readonly string[], upstream: boolean): unknown[] {
  const mayNameUpstream = (rule: unknown) => {
    const tool = (rule as { tool?: unknown } | null)?.tool;
    return typeof tool === 'string' && prefixes.some((prefix) => tool.startsWith(prefix));
  };
  return rules.map((rule) => (mayNameUpstream(rule) === upstream ? rule : undefined));
}

const AUDIT_OUTAGE = {
  down: 'audit trail cannot be written: side-effecting calls answer AUDIT_UNAVAILABLE and do not run; read-only calls run, their records held (audit.max_pending)',
  up: 'audit trail written again',
};

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

/**
 * Every start-up check in one pass, so that one run lists every problem:
 * the configuration's own, then the tools (the OpenAPI documents' fetched
 * and read here: one that cannot be is a problem, an operation that cannot
 * be a tool is logged and left out), the policy rules against them, and the
 * workspace and spill store, each on whatever parts of the
 * configuration are valid; then, for a configuration without problems, the
 * upstream MCP servers (startMcpServers). Throws ConfigError listing them all.
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
  const traces = tracingSettings(env);
  const webhook = webhookUrlProblem(config.approvals);
  const problems = [...report.problems, ...traces.problems, ...(webhook ? [webhook] : [])];
  const create = problems.length === 0;
  const workspace = resolve(config.workspace);
  if (create) {
    try {
      mkdirSync(workspace, { recursive: true });
    } catch (err) {
      problems.push(`workspace ${workspace}: ${(err as Error).message}`);
    }
  }
  let registry: ToolRegistry | undefined;
  let set: ToolSet | undefined;
  const prefixes = config.mcp_servers.map((server) => server.prefix);
  let imported: Tool[] = [];
  try {
    // Checking the rest needs only the built-ins' names and schemas: without a workspace (a problem already
    // listed) they are built on a stand-in root, and start-up stops before any of them could run.
    set = inspectTools(config, { workspace: isDirectory(workspace) ? workspace : tmpdir(), env, dispatchers });
    const openapi = await loadOpenApiSources(config.openapi_sources, { dispatchers, env, baseDir: report.baseDir, taken: new Set(set.tools.map((t) => t.name)) });
    for (const line of openapi.skipped) logger.warn({ problem: line }, 'OpenAPI operation left out; the rest of its document is served');
    imported = openapi.tools;
    // Rules that may name an MCP server's tool wait until the servers have answered (below).
    const targets = ruleTargets(set.builtins, report.written.tools, imported);
    problems.push(...set.problems, ...openapi.problems, ...unreachableRules(rulesOn(report.written.rules, prefixes, false), targets));
    // Toolset entries that may name an MCP server's tool wait for the servers too.
    const served = [...set.tools, ...imported].map((t) => t.name);
    problems.push(...toolsetProblems(config.toolsets, served, (entry) => prefixes.some((prefix) => entry.startsWith(prefix))));
    registry = createRegistry([...set.tools, ...imported], registryDefaults(config));
  } catch (err) {
    problems.push(...(err as Error).message.split('\n'));
  }
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
  const audit = auditSettings(config.audit);
  let trail: AuditTrail | undefined;
  if (audit) {
    let store: AuditStore | undefined;
    try {
      store = createAuditStore(audit.url, audit.rotate_bytes, s3);
      // Unlike the spill store, one that cannot be written at start-up stops it: side-effecting calls could not run.
      if (create) {
        const chain = await store.open(replicaName(audit.replica, role));
        await store.ping();
        const health = new Outage(logger, metrics.auditFailures, AUDIT_OUTAGE);
        const onDropped = () => metrics.auditUnrecorded.inc({ kind: 'dropped' });
        trail = new AuditTrail({ store, chain, clock: systemClock, flushMs: audit.flush_ms, maxPending: audit.max_pending, health, onDropped });
      }
    } catch (err) {
      problems.push(`audit.url ${audit.url}: ${(err as Error).message}`);
    }
  } else logger.info('audit: false: no audit trail is written');
  if (problems.length > 0 || !registry || !spill || !set) {
    await trail?.close();
    throw new ConfigError(problems);
  }
  logBash(set, logger);
  // Last, and only for a configuration that can be served: no server is started for one that cannot.
  const { mcp, problems: mcpProblems } = await startMcpServers(config, registry, { env, dispatchers, metrics, logger });
  // A rule that may name a tool of a server not up yet is not checked: that server's tools are not known.
  const answered = mcp.supervisors.filter((s) => s.connected()).map((s) => s.server);
  const known = config.mcp_servers.filter((server) => answered.includes(server.name)).map((server) => server.prefix);
  const unknown = prefixes.filter((_, i) => !answered.includes(config.mcp_servers[i]!.name));
  const upstreamTools = registry.list().filter((e) => e.tool.upstream).map((e) => e.tool);
  const upstreamRules = rulesOn(rulesOn(report.written.rules, known, true), unknown, false);
  mcpProblems.push(...unreachableRules(upstreamRules, ruleTargets(set.builtins, report.written.tools, [...imported, ...upstreamTools])));
  const startsWithAny = (entry: string, of: readonly string[]) => of.some((prefix) => entry.startsWith(prefix));
  const names = registry.list().map((e) => e.name);
  mcpProblems.push(...toolsetProblems(config.toolsets, names, (entry) => !startsWithAny(entry, prefixes) || startsWithAny(entry, unknown)));
  if (mcpProblems.length > 0) {
    await mcp.close();
    await trail?.close();
    throw new ConfigError(mcpProblems);
  }
  return { config: acceptConfig(report), workspace, registry, spill, mcp, ...(traces.settings && { tracing: traces.settings }), ...(trail && { audit: trail }) };
}

/** Which sandbox Bash commands run in, said once at start-up; running without one is a warning. */
function logBash(set: ToolSet, logger: Logger): void {
  if (!set.bash) return;
  const { sandbox, warnings } = set.bash;
  for (const warning of warnings) logger.warn({ tool: 'Bash', sandbox: sandbox.mode }, warning);
  logger.info({ tool: 'Bash', sandbox: sandbox.mode, sandbox_setting: sandbox.setting }, `Bash enabled: commands run ${sandbox.mode === 'bwrap' ? 'in bubblewrap' : 'WITHOUT a sandbox'}`);
}

/** The state store the configuration names: Redis (one node, Sentinel or Cluster), else memory (said in the log: one replica only). */
export function createStateStore(config: Config, log: Logger, metrics: Metrics): StateStore {
  const topology = redisTopology(config.state);
  if (!topology) {
    log.warn('no REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES: state is in memory, so this process must be the only replica');
    return createMemoryStateStore({ maxBytes: config.state.memory_max_bytes, onEvict: (kind) => metrics.stateEvictions.inc({ kind }) });
  }
  return createRedisStateStore({
    topology,
    keyPrefix: config.state.key_prefix,
    connectTimeoutMs: config.state.connect_timeout_ms,
    commandTimeoutMs: config.state.command_timeout_ms,
  });
}

/**
 * Ctrl-C under `npm start` reaches the process twice at once (the terminal
 * signals the whole process group and npm forwards its own copy): a repeat
 * this soon is the same request to stop. A later one means "stop now".
 */
const REPEAT_SIGNAL_MS = 1_000;

/**
 * SIGTERM/SIGINT run `stop` once, then exit 0 (1 if it failed); a later
 * second signal exits at once without waiting for `waitingFor`. The log is
 * flushed first: lines still queued at process.exit would come out of order
 * or not at all.
 */
export function onStopSignals(logger: Logger, waitingFor: string, stop: (signal: NodeJS.Signals) => Promise<void>): void {
  const exit = (code: number) => logger.flush(() => process.exit(code));
  let stoppingSince: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stoppingSince === undefined) {
      stoppingSince = Date.now();
      stop(signal).then(
        () => exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          exit(1);
        },
      );
    } else if (Date.now() - stoppingSince >= REPEAT_SIGNAL_MS) {
      logger.warn({ signal }, `second signal: exiting without waiting for ${waitingFor}`);
      exit(1);
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
