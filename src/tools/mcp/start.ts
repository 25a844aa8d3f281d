import type { Logger } from 'pino';
import type { Config } from '../../config/schema.js';
import { createGuardrails } from '../../guardrails/index.js';
import type { Metrics } from '../../observability/metrics.js';
import type { CredentialProvider } from '../credentials.js';
import type { HttpDispatchers } from '../http/index.js';
import type { Tool } from '../tool.js';
import { createMcpServers } from './index.js';
import type { McpSupervisor } from './supervisor.js';

/** The upstream MCP servers a gateway runs; close them on shutdown (stdio servers' processes end). */
export interface McpServers {
  supervisors: readonly McpSupervisor[];
  close(): Promise<void>;
}

interface McpStartDeps {
  credentials: CredentialProvider;
  dispatchers: HttpDispatchers;
  metrics: Metrics;
  logger: Logger;
}

/** Where a server's tools are served (the registry): each new list replaces the server's last, and what it left out is reported. */
interface ToolSources {
  setSource(
    source: string,
    tools: readonly Tool[],
  ): { refused: readonly string[]; invalid: readonly string[]; unchecked: readonly string[] };
}

/**
 * Start every MCP server and keep `registry` in step with its tools. Waits, up to each `connect_timeout_ms`, for the first lists: a refused
 * or taken name is a start-up problem (every server then closed), a schema ajv rejects is logged and left out; a server not up yet joins later.
 */
export async function startMcpServers(
  config: Pick<Config, 'mcp_servers' | 'guardrails'>,
  registry: ToolSources,
  deps: McpStartDeps,
): Promise<{ mcp: McpServers; problems: string[] }> {
  const records = createGuardrails(config.guardrails).records;
  const { supervisors, problems } = createMcpServers(config.mcp_servers, { ...deps, log: deps.logger, records });
  const mcp: McpServers = { supervisors, close: async () => void (await Promise.all(supervisors.map((s) => s.close()))) };
  if (problems.length > 0) return { mcp, problems };
  let starting = true;
  for (const supervisor of supervisors) {
    const log = deps.logger.child({ mcp_server: supervisor.server });
    supervisor.onTools((tools) => {
      const report = registry.setSource(supervisor.server, tools);
      for (const problem of report.invalid) log.warn({ problem }, 'MCP server tool left out: its schema does not compile');
      for (const problem of report.unchecked) log.warn({ problem }, 'MCP server tool served with patterns the gateway does not check');
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
