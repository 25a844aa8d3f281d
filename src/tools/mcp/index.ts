import type { Logger } from 'pino';
import type { SecretScanner } from '../../guardrails/index.js';
import type { McpServerConfig } from '../../config/schema.js';
import type { Metrics } from '../../observability/metrics.js';
import { McpSupervisor } from './supervisor.js';
import { httpConnector, transportFor, type TransportDeps } from './transport.js';
import { UserConnections } from './user-connections.js';

interface McpServersDeps extends TransportDeps {
  log: Logger;
  records: SecretScanner;
  metrics: Pick<Metrics, 'mcpServerUp' | 'mcpServerReconnects'>;
}

/** A supervisor for each configured server, not started yet, and every start-up problem of their configs, each naming its server. */
export function createMcpServers(
  servers: readonly McpServerConfig[],
  deps: McpServersDeps,
): { supervisors: McpSupervisor[]; problems: string[] } {
  const supervisors: McpSupervisor[] = [];
  const problems: string[] = [];
  for (const server of servers) {
    try {
      const connection = transportFor(server, deps);
      const log = deps.log.child({ mcp_server: server.name });
      const users = server.auth && server.url !== undefined ? new UserConnections(server, httpConnector(server, deps), log) : undefined;
      supervisors.push(
        new McpSupervisor(server, connection, { log, metrics: deps.metrics, records: deps.records, ...(users && { users }) }),
      );
    } catch (err) {
      problems.push(`mcp_servers.${server.name}: ${(err as Error).message}`);
    }
  }
  return { supervisors, problems };
}
