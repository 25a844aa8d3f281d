import { describe, expect, it } from 'vitest';
import { ConfigError, configFrom } from '../../../src/config/load.js';

/** oauth_providers and `auth`: what start-up refuses before the environment is read (docs/credentials.md). */

const PROVIDER = {
  name: 'github',
  authorization_endpoint: 'https://github.com/login/oauth/authorize',
  token_endpoint: 'https://github.com/login/oauth/access_token',
  client_id: 'Iv1.abc',
  client_secret: '${GITHUB_CLIENT_SECRET}',
};
const TOOL = {
  name: 'list_my_repos',
  description: 'My repositories.',
  parameters: { type: 'object' },
  http: { method: 'GET', url: 'https://api.github.com/user/repos' },
};

function problemsOf(overrides: Record<string, unknown>): string[] {
  try {
    configFrom(overrides);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('oauth_providers and auth', () => {
  it('fills in the defaults: no scopes, Authorization: Bearer, a 10-minute link, refresh 60 s before expiry, public endpoints only', () => {
    const config = configFrom({ oauth_providers: [PROVIDER], tools: [{ ...TOOL, auth: { provider: 'github' } }] });
    expect(config.oauth_providers[0]).toEqual({
      ...PROVIDER,
      scopes: [],
      token_header: 'authorization',
      token_prefix: 'Bearer ',
      allow_private_network: false,
    });
    expect(config.oauth).toEqual({ link_ttl_seconds: 600, refresh_before_seconds: 60 });
    expect(config.tools[0]!.auth).toEqual({ provider: 'github', scopes: [] });
  });

  it('refuses an auth naming a provider that is not configured, naming both (an MCP server over HTTP may have auth)', () => {
    const problems = problemsOf({
      oauth_providers: [PROVIDER],
      tools: [{ ...TOOL, auth: { provider: 'gitlab' } }],
      openapi_sources: [{ name: 'petstore', spec: './petstore.yaml', auth: { provider: 'google' } }],
      mcp_servers: [
        { name: 'linear', url: 'https://mcp.linear.app/mcp', auth: { provider: 'linear' } },
        { name: 'github', url: 'https://mcp.github.example/mcp', auth: { provider: 'github' } },
      ],
    });
    expect(problems).toEqual([
      'tools.list_my_repos.auth.provider: "gitlab" is not in oauth_providers; add it there, or use one of github',
      'openapi_sources.petstore.auth.provider: "google" is not in oauth_providers; add it there, or use one of github',
      'mcp_servers.linear.auth.provider: "linear" is not in oauth_providers; add it there, or use one of github',
    ]);
  });

  it('refuses a client secret written in the file: only a ${VAR} reference', () => {
    const problems = problemsOf({ oauth_providers: [{ ...PROVIDER, client_secret: 'hunter2-in-the-file' }] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^oauth_providers\.0\.client_secret: must match pattern/);
    expect(problems[0]).not.toContain('hunter2');
  });

  it('wants either an issuer or both endpoints, and each name once', () => {
    const { authorization_endpoint: _a, token_endpoint: _t, ...bare } = PROVIDER;
    expect(
      problemsOf({
        oauth_providers: [
          { ...bare, name: 'a' },
          { ...PROVIDER, name: 'b', issuer: 'https://login.example.com' },
          { ...bare, name: 'c', token_endpoint: PROVIDER.token_endpoint },
          PROVIDER,
          PROVIDER,
        ],
      }),
    ).toEqual([
      'oauth_providers.a: give issuer (its endpoints discovered), or both authorization_endpoint and token_endpoint',
      'oauth_providers.b: give either issuer (its endpoints discovered) or authorization_endpoint and token_endpoint, not both',
      'oauth_providers.c: give issuer (its endpoints discovered), or both authorization_endpoint and token_endpoint',
      'oauth_providers: the name "github" is used twice',
    ]);
  });

  it('with token_exchange, wants an issuer or a token endpoint only: no one is sent to authorize', () => {
    const { authorization_endpoint: _a, token_endpoint: _t, ...bare } = PROVIDER;
    const exchange = { token_exchange: { audience: 'https://api.example.com' } };
    expect(
      problemsOf({
        oauth_providers: [
          { ...bare, ...exchange, name: 'a' },
          { ...bare, ...exchange, name: 'b', token_endpoint: PROVIDER.token_endpoint },
          { ...bare, ...exchange, name: 'c', issuer: 'https://login.example.com' },
        ],
      }),
    ).toEqual(['oauth_providers.a: give issuer (its endpoints discovered), or token_endpoint']);
  });

  it('refuses auth on a stdio MCP server: only a server over HTTP sends a token', () => {
    expect(
      problemsOf({ oauth_providers: [PROVIDER], mcp_servers: [{ name: 'local', command: 'node', auth: { provider: 'github' } }] }),
    ).toEqual(['mcp_servers.local: auth does not apply to a stdio server (command); remove it']);
  });
});
