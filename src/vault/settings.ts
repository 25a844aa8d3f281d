import type { Config } from '../config/schema.js';
import type { OAuthProviderConfig } from '../config/credentials-schema.js';
import { keyringFromEnv, type Keyring } from './keyring.js';

/** A provider with its client's id and secret read from the environment. */
export interface ProviderSettings extends OAuthProviderConfig {
  client_id: string;
  client_secret: string;
}

/** What the vault needs from the configuration and the environment. */
export interface VaultSettings {
  /** TOOLGATE_PUBLIC_URL without a trailing slash: links are `<it>/oauth/authorize/{id}`, the redirect URI `<it>/oauth/callback`. */
  publicUrl: string;
  keyring: Keyring;
  providers: ProviderSettings[];
  linkTtlMs: number;
  refreshBeforeMs: number;
}

const ENV_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** `${VAR}` read from `env`, or the value as written; a problem when the variable is unset (its value never shown). */
function fromEnv(written: string, where: string, env: NodeJS.ProcessEnv, problems: string[]): string {
  const ref = ENV_REF.exec(written);
  if (!ref) return written;
  const value = env[ref[1]!];
  if (value === undefined || value === '') problems.push(`${where}: uses \${${ref[1]}}, which is not set in the environment`);
  return value ?? '';
}

/** The public URL's problem: an absolute http(s) URL without query or fragment. */
function publicUrlOf(env: NodeJS.ProcessEnv, problems: string[]): string {
  const raw = env.TOOLGATE_PUBLIC_URL ?? '';
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '' || url.username !== '') {
    problems.push(
      'TOOLGATE_PUBLIC_URL: must be the gateway’s public base URL (e.g. https://toolgate.example.com), where people’s browsers reach /oauth/authorize and /oauth/callback',
    );
    return '';
  }
  return url.href.replace(/\/$/, '');
}

/**
 * The vault's settings when `oauth_providers` names any provider (else none is needed): every problem at once,
 * a missing client secret, public URL or vault key each named.
 */
export function vaultSettings(config: Config, env: NodeJS.ProcessEnv): { settings?: VaultSettings; problems: string[] } {
  if (config.oauth_providers.length === 0) return { problems: [] };
  const problems: string[] = [];
  const providers = config.oauth_providers.map((provider) => ({
    ...provider,
    client_id: fromEnv(provider.client_id, `oauth_providers.${provider.name}.client_id`, env, problems),
    client_secret: fromEnv(provider.client_secret, `oauth_providers.${provider.name}.client_secret`, env, problems),
  }));
  const publicUrl = publicUrlOf(env, problems);
  const { keyring, problems: keyProblems } = keyringFromEnv(env);
  problems.push(...keyProblems);
  if (!keyring || problems.length > 0) return { problems };
  return {
    settings: {
      publicUrl,
      keyring,
      providers,
      linkTtlMs: config.oauth.link_ttl_seconds * 1000,
      refreshBeforeMs: config.oauth.refresh_before_seconds * 1000,
    },
    problems,
  };
}
