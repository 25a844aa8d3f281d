import { offerShapes } from './catalog/offers.js';
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { webhookUrlProblem } from './approvals/index.js';
import type { AuditTrail } from './audit/index.js';
import { auditSettings } from './config/audit-schema.js';
import { acceptConfig, ConfigError, type ConfigReport } from './config/load.js';
import { shippedRulesProblem } from './guardrails/index.js';
import type { Config } from './config/schema.js';
import type { Metrics } from './observability/metrics.js';
import type { TracingSettings } from './observability/spans.js';
import { tracingSettings } from './observability/tracing.js';
import { localReachProblems, upstreamReachProblems, type ReachInput } from './policy/index.js';
import { createRegistry, registryDefaults, type ToolRegistry } from './registry/registry.js';
import { fileUrlToDir } from './spill/index.js';
import type { SpillStore } from './spill/spill-store.js';
import type { HttpDispatchers } from './tools/http/index.js';
import { createEnvCredentials, type CredentialProvider } from './tools/credentials.js';
import { inspectTools, probeWorkspace, type ToolSet } from './tools/index.js';
import { startMcpServers, type McpServers } from './tools/mcp/start.js';
import { headerProblems, startOpenApiSources, type OpenApiLoads } from './tools/openapi/index.js';
import { tierOf } from './tools/capabilities.js';
import type { TokenVerifier } from './identity/index.js';
import { openAudit, openSpill, openTokens, type StartDeps } from './startup-stores.js';
import { vaultSettings, type VaultSettings } from './vault/index.js';
import { createWorkspaces, layoutTenants, rootOverlapProblems, storeInRootProblems, workspaceLayout } from './tools/workspaces.js';

interface Prepared {
  config: Config;
  workspace: string;
  registry: ToolRegistry;
  spill: SpillStore;
  mcp: McpServers;
  /** Absent with tracing off. */
  tracing?: TracingSettings;
  /** Opened; absent with `audit: false`. */
  audit?: AuditTrail;
  /** The tools' secrets, from the environment: what their `${NAME}` were checked against. */
  credentials: CredentialProvider;
  /** The access tokens of `auth.oauth`'s issuers, discovered; absent without issuers, and in a worker. */
  tokens?: TokenVerifier;
  /** The OpenAPI documents loading in the background; each source's tools join the registry when it is read. Close on shutdown. */
  openapi: OpenApiLoads;
  /** What the vault of users' grants needs (keys, clients, public URL); absent without `oauth_providers`. */
  vault?: VaultSettings;
}

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

function localStoreDirs(config: Config): Array<{ setting: string; dir: string }> {
  const urls = [
    { name: 'spill.url', url: config.spill.url },
    { name: 'audit.url', url: auditSettings(config.audit)?.url },
  ];
  return urls.flatMap(({ name, url }) => {
    if (url === undefined || !/^file:\/\//i.test(url)) return [];
    try {
      return [{ setting: `${name} ${url}`, dir: fileUrlToDir(url) }];
    } catch {
      return [];
    }
  });
}

/** Made when `create`; a path that cannot be made, or two tenants' roots that overlap or nest, is a problem. */
function makeWorkspace(config: Config, create: boolean, problems: string[]): string {
  const workspace = resolve(config.workspace);
  // A section with problems of its own is back to its default here: no problem is listed for a root it has not read.
  const layout = workspaceLayout(config);
  const tenants = layoutTenants(layout, config.keys);
  const overlaps = [...rootOverlapProblems(layout, tenants), ...storeInRootProblems(layout, tenants, localStoreDirs(config))];
  problems.push(...overlaps);
  if (!create || overlaps.length > 0) return workspace;
  try {
    mkdirSync(workspace, { recursive: true });
  } catch (err) {
    problems.push(`workspace ${workspace}: ${(err as Error).message}`);
    return workspace;
  }
  const workspaces = createWorkspaces(layout);
  for (const tenant of tenants) {
    try {
      workspaces.make(tenant);
    } catch (err) {
      problems.push(`tenants.${tenant}: its workspace cannot be made: ${(err as Error).message}`);
    }
  }
  return workspace;
}

/**
 * The built-in and declared tools; OpenAPI documents load after start-up (startOpenApiSources), so here only their headers' `${VAR}`s are
 * checked, and rules and toolsets that may name their tools are not.
 */
function prepareTools(
  report: ConfigReport,
  workspace: string,
  reach: ReachInput,
  deps: StartDeps,
  problems: string[],
): { set: ToolSet; registry: ToolRegistry } | undefined {
  const { config } = report;
  const { credentials, dispatchers } = deps;
  try {
    // Without a workspace (a problem already listed) the built-ins are checked on a stand-in root; none can run.
    const set = inspectTools(config, { workspace: isDirectory(workspace) ? workspace : tmpdir(), credentials, dispatchers });
    const unanswered = config.openapi_sources.flatMap((source) => headerProblems(source, credentials));
    problems.push(
      ...set.problems,
      ...unanswered,
      ...localReachProblems(
        reach,
        set.builtins,
        set.tools.map((t) => t.name),
      ),
    );
    return { set, registry: createRegistry(set.tools, registryDefaults(config)) };
  } catch (err) {
    problems.push(...(err as Error).message.split('\n'));
    return undefined;
  }
}

/**
 * Every start-up check in one pass, so one run lists every problem (ConfigError lists them all). A configuration with
 * problems of its own creates nothing; the workspace and spill directory are made and written to once, before the port
 * opens, only when it has none. MCP servers start last, only for a configuration that can be served.
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
  const deps: StartDeps = { env, credentials: createEnvCredentials(env), dispatchers, metrics, logger };
  const traces = tracingSettings(env);
  const vault = vaultSettings(config, env);
  const webhook = webhookUrlProblem(config.approvals);
  const rules = shippedRulesProblem();
  const problems = [...report.problems, ...traces.problems, ...vault.problems, ...(webhook ? [webhook] : []), ...(rules ? [rules] : [])];
  const create = problems.length === 0;
  const workspace = makeWorkspace(config, create, problems);
  if (create && isDirectory(workspace)) {
    // What Write and Edit rely on (atomic rename, the write lock across replicas): refused, or warned with what it risks.
    const probe = await probeWorkspace(workspace);
    problems.push(...probe.problems);
    for (const warning of probe.warnings) logger.warn({ workspace }, warning);
  }
  // An OpenAPI source's tools, like an MCP server's, may be named before they are known: its prefix is one of the upstream ones.
  const reach: ReachInput = {
    written: report.written,
    toolsets: config.toolsets,
    prefixes: [...config.mcp_servers.map((server) => server.prefix), ...config.openapi_sources.map((source) => source.prefix)],
  };
  const tools = prepareTools(report, workspace, reach, deps, problems);
  const { spill, s3 } = await openSpill(config, env, metrics, create, problems);
  const trail = await openAudit(config, s3, role, deps, create, problems);
  const tokens = await openTokens(config, role, deps, problems);
  if (problems.length > 0 || !tools || !spill) {
    tokens?.close();
    await trail?.close();
    throw new ConfigError(problems);
  }
  const { set, registry } = tools;
  logBash(set, logger);
  const { mcp, problems: mcpProblems } = await startMcpServers(config, registry, deps);
  const answered = [
    ...config.mcp_servers.map((server) => mcp.supervisors.some((s) => s.server === server.name && s.connected())),
    ...config.openapi_sources.map(() => false),
  ];
  const upstreamTools = registry
    .list()
    .filter((e) => e.tool.upstream)
    .map((e) => e.tool);
  const names = registry.list().map((e) => e.name);
  const offers = offerShapes(mcp.supervisors);
  mcpProblems.push(...upstreamReachProblems(reach, answered, [...set.builtins, ...upstreamTools, ...offers], names));
  if (mcpProblems.length > 0) {
    tokens?.close();
    await mcp.close();
    await trail?.close();
    throw new ConfigError(mcpProblems);
  }
  const openapi = startOpenApiSources(config.openapi_sources, registry, {
    dispatchers,
    credentials: deps.credentials,
    baseDir: report.baseDir,
    taken: new Set(set.tools.map((t) => t.name)),
    logger,
  });
  return {
    config: acceptConfig(report),
    openapi,
    workspace,
    registry,
    spill,
    mcp,
    ...(traces.settings && { tracing: traces.settings }),
    ...(trail && { audit: trail }),
    credentials: deps.credentials,
    ...(tokens && { tokens }),
    ...(vault.settings && { vault: vault.settings }),
  };
}

function logBash(set: ToolSet, logger: Logger): void {
  if (!set.bash) return;
  const { sandbox, warnings } = set.bash;
  for (const warning of warnings) logger.warn({ tool: 'Bash', sandbox: sandbox.mode }, warning);
  const tier = tierOf(sandbox);
  const how =
    sandbox.mode === 'bwrap'
      ? 'in bubblewrap (tier sandbox: the read-only table runs without an approval)'
      : `WITHOUT a sandbox${sandbox.fail_closed ? ', each after an approval' : ' (tier none: only the inert core runs without an approval)'}`;
  logger.info(
    { tool: 'Bash', sandbox: sandbox.mode, sandbox_setting: sandbox.setting, tier, ...(sandbox.fail_closed && { fail_closed: true }) },
    `Bash enabled: commands run ${how}`,
  );
}
