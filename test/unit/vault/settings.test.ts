import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { vaultSettings } from '../../../src/vault/settings.js';

const PROVIDER = {
  name: 'github',
  authorization_endpoint: 'https://github.com/login/oauth/authorize',
  token_endpoint: 'https://github.com/login/oauth/access_token',
  client_id: '${GITHUB_CLIENT_ID}',
  client_secret: '${GITHUB_CLIENT_SECRET}',
};
const ENV = {
  GITHUB_CLIENT_ID: 'Iv1.abc',
  GITHUB_CLIENT_SECRET: 'the-client-secret',
  TOOLGATE_PUBLIC_URL: 'https://toolgate.example.com/',
  TOOLGATE_VAULT_KEY: randomBytes(32).toString('base64'),
  TOOLGATE_VAULT_KEY_ID: 'k1',
};

describe('vault settings (start-up)', () => {
  it('are not needed without providers', () => {
    expect(vaultSettings(configFrom({}), {})).toEqual({ problems: [] });
  });

  it('read the client from the environment and the public URL without its slash', () => {
    const { settings, problems } = vaultSettings(configFrom({ oauth_providers: [PROVIDER] }), ENV);
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({ publicUrl: 'https://toolgate.example.com', linkTtlMs: 600_000, refreshBeforeMs: 60_000 });
    expect(settings!.providers[0]).toMatchObject({ client_id: 'Iv1.abc', client_secret: 'the-client-secret' });
  });

  it('name the provider without a client secret, a missing public URL and vault key: every problem at once', () => {
    const { settings, problems } = vaultSettings(configFrom({ oauth_providers: [PROVIDER] }), { GITHUB_CLIENT_ID: 'x' });
    expect(settings).toBeUndefined();
    expect(problems).toEqual([
      'oauth_providers.github.client_secret: uses ${GITHUB_CLIENT_SECRET}, which is not set in the environment',
      'TOOLGATE_PUBLIC_URL: must be the gateway’s public base URL (e.g. https://toolgate.example.com), where people’s browsers reach /oauth/authorize and /oauth/callback',
      'TOOLGATE_VAULT_KEY: not set; grants are stored encrypted under it (openssl rand -base64 32)',
      'TOOLGATE_VAULT_KEY_ID: must name the key in 1 to 32 letters, digits, _ or - (e.g. 2026-01); records carry it',
    ]);
  });
});
