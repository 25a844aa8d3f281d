import type { UpstreamAuth } from '../config/credentials-schema.js';
import { GatewayError } from '../protocol/errors.js';
import type { SubjectToken } from '../shared/subject-token.js';

/** Who a call runs for, as its tool sees it. */
export interface ToolCaller {
  readonly tenant: string;
  /** The API key's id (`keys[].id`; `local` for the keyless loopback caller). */
  readonly keyId: string;
  /** The person the call is for (a token's subject, or `x-toolgate-user` from an on_behalf key); undefined: the key's own call. */
  readonly user: string | undefined;
  /** The access token the person called with (not a key's call): what token exchange trades for the provider's (docs/credentials.md). */
  readonly subjectToken?: SubjectToken;
}

/** The secrets one tool may use for one caller (docs/tools.md, "Caller and credentials"). */
export interface Credentials {
  /** The secret called `name` (a `${NAME}` of the tool's configuration). Rejects when there is none. */
  get(name: string): Promise<string>;
  /** The calling user's access token at `auth.provider` (docs/credentials.md); rejects with AUTHORIZATION_REQUIRED when there is none to use. */
  token(auth: UpstreamAuth): Promise<UpstreamToken>;
}

/** A person's access token and where the provider's configuration says it goes. */
export interface UpstreamToken {
  /** The token itself: scrubbed from whatever comes back. */
  token: string;
  /** The request header it is sent in, lower-cased (`authorization` unless the provider says otherwise). */
  header: string;
  /** That header's value: the token with the provider's prefix (`Bearer ` by default). */
  value: string;
}

/** Answers "the secret for this tool and this caller": tools ask it through their context, never the environment. */
export interface CredentialProvider {
  /** Start-up check of a `${NAME}` that `what` (`header "x-key"`, `env TOKEN`) uses: why it cannot be answered, if so. */
  problem(name: string, what: string): string | undefined;
  /** The credentials of `tool` for `caller`; without a caller for a connection every caller shares (an MCP server's, by its name). */
  for(tool: string, caller?: ToolCaller): Credentials;
}

/**
 * The gateway's environment as the credential of every tool and caller: the values are taken once, at start-up, and never change while it
 * runs.
 */
export function createEnvCredentials(env: NodeJS.ProcessEnv): CredentialProvider {
  const values = { ...env };
  const credentials: Credentials = {
    get(name) {
      const value = values[name];
      return value ? Promise.resolve(value) : Promise.reject(new Error(`\${${name}} is not set in the environment`));
    },
    token: (auth) =>
      Promise.reject(
        new GatewayError('AUTHORIZATION_REQUIRED', {
          message: `This tool acts as a person at ${auth.provider}, and this gateway keeps no grants (no oauth_providers configured).`,
          details: { provider: auth.provider },
        }),
      ),
  };
  return {
    problem(name, what) {
      const value = values[name];
      if (value === undefined || value === '')
        return `${what} uses \${${name}}, which is not set in the environment; set ${name} for the gateway, or take it out`;
      if (/[\r\n\0]/.test(value)) return `${what} uses \${${name}}, whose value holds a line break or NUL; set ${name} to a single line`;
      return undefined;
    },
    for: () => credentials,
  };
}
