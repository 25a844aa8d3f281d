import type { Config } from './schema.js';

/** What names an `auth`: each HTTP tool, OpenAPI source and MCP server, with where its setting is. */
function authUsers(config: Pick<Config, 'tools' | 'openapi_sources' | 'mcp_servers'>): Array<{ where: string; provider: string }> {
  return [
    ...config.tools.flatMap((tool) => (tool.auth ? [{ where: `tools.${tool.name}.auth`, provider: tool.auth.provider }] : [])),
    ...config.openapi_sources.flatMap((source) =>
      source.auth ? [{ where: `openapi_sources.${source.name}.auth`, provider: source.auth.provider }] : [],
    ),
    ...config.mcp_servers.flatMap((server) =>
      server.auth ? [{ where: `mcp_servers.${server.name}.auth`, provider: server.auth.provider }] : [],
    ),
  ];
}

/** Providers named once, each with its endpoints from exactly one place; every `auth` naming a provider that is configured. */
export function credentialProblems(config: Config, sound: (section: keyof Config) => boolean): string[] {
  if (!sound('oauth_providers')) return [];
  const problems: string[] = [];
  const names = new Set<string>();
  for (const provider of config.oauth_providers) {
    const where = `oauth_providers.${provider.name}`;
    if (names.has(provider.name)) problems.push(`oauth_providers: the name "${provider.name}" is used twice`);
    names.add(provider.name);
    const endpoints = provider.authorization_endpoint !== undefined || provider.token_endpoint !== undefined;
    if (provider.issuer !== undefined && endpoints) {
      problems.push(`${where}: give either issuer (its endpoints discovered) or authorization_endpoint and token_endpoint, not both`);
    } else if (provider.token_exchange && provider.issuer === undefined && provider.token_endpoint === undefined) {
      // Token exchange sends no one to the provider: its token endpoint is all it needs.
      problems.push(`${where}: give issuer (its endpoints discovered), or token_endpoint`);
    } else if (
      !provider.token_exchange &&
      provider.issuer === undefined &&
      (provider.authorization_endpoint === undefined || provider.token_endpoint === undefined)
    ) {
      problems.push(`${where}: give issuer (its endpoints discovered), or both authorization_endpoint and token_endpoint`);
    }
  }
  const readable = { tools: sound('tools'), openapi_sources: sound('openapi_sources'), mcp_servers: sound('mcp_servers') };
  const users = authUsers({
    tools: readable.tools ? config.tools : [],
    openapi_sources: readable.openapi_sources ? config.openapi_sources : [],
    mcp_servers: readable.mcp_servers ? config.mcp_servers : [],
  });
  for (const { where, provider } of users) {
    if (!names.has(provider)) {
      const known = [...names].join(', ') || '(none configured)';
      problems.push(`${where}.provider: "${provider}" is not in oauth_providers; add it there, or use one of ${known}`);
    }
  }
  return problems;
}
