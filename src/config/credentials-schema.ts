import { Type, type Static } from 'typebox';

/*
 * Per-user credentials for upstream tools (docs/credentials.md): the providers
 * people authorize toolgate at, how long an authorization link lives, and the
 * `auth` a tool, an OpenAPI source or an MCP server over HTTP names.
 */

const PROVIDER_NAME = '^[A-Za-z0-9_-]{1,64}$';
const URL = '^https?://[^\\s]+$';
const SCOPE = Type.String({ pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$', description: 'One OAuth scope (RFC 6749 section 3.3).' });

/** One OAuth 2 authorization server people authorize toolgate at, for tools that act as them. */
export const OAuthProviderSchema = Type.Object(
  {
    name: Type.String({ pattern: PROVIDER_NAME, description: 'Unique; what `auth.provider` names and GET /me/connections lists.' }),
    issuer: Type.Optional(
      Type.String({
        pattern: URL,
        description: 'Discover the endpoints from its metadata (RFC 8414, else OpenID discovery); or give the endpoints themselves.',
      }),
    ),
    authorization_endpoint: Type.Optional(Type.String({ pattern: URL })),
    token_endpoint: Type.Optional(Type.String({ pattern: URL })),
    revocation_endpoint: Type.Optional(
      Type.String({ pattern: URL, description: 'RFC 7009: DELETE /me/connections/{provider} revokes the grant here first.' }),
    ),
    client_id: Type.String({ minLength: 1, description: '${VAR} reads it from the environment.' }),
    client_secret: Type.String({
      pattern: '^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$',
      description: 'A ${VAR} naming the environment variable that holds it; never written in the file.',
    }),
    scopes: Type.Array(SCOPE, { default: [], description: 'Asked for on every authorization, with the tool’s own.' }),
    user_claim: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The provider is an OpenID provider of the same people as the gateway: `openid` is asked for, and the ID token’s claim must name the user the link was made for.',
      }),
    ),
    token_header: Type.String({
      pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$",
      default: 'authorization',
      description: 'The request header a tool sends the person’s access token in.',
    }),
    token_prefix: Type.String({
      pattern: '^[\\x20-\\x7E]{0,32}$',
      default: 'Bearer ',
      description: 'Put before the token in that header.',
    }),
    allow_private_network: Type.Boolean({ default: false, description: 'The endpoints may be on a private or loopback address.' }),
    token_exchange: Type.Optional(
      Type.Object(
        {
          audience: Type.Optional(Type.String({ minLength: 1, description: 'The `audience` asked for (RFC 8693 section 2.1).' })),
          resource: Type.Optional(Type.String({ pattern: URL, description: 'The `resource` asked for (RFC 8693 section 2.1).' })),
        },
        {
          additionalProperties: false,
          description:
            'Reach the provider by RFC 8693 token exchange: the caller’s own access token traded at the token endpoint, no authorization link.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The `auth` of an HTTP tool, OpenAPI source or MCP server over HTTP: the calling user's token at `provider`. */
export const UpstreamAuthSchema = Type.Object(
  {
    provider: Type.String({ pattern: PROVIDER_NAME, description: 'An oauth_providers name.' }),
    scopes: Type.Array(SCOPE, { default: [], description: 'Asked for beside the provider’s scopes.' }),
  },
  { additionalProperties: false, description: "The calling user's access token at the provider, sent as Authorization: Bearer." },
);

export const OAuthLinksSchema = Type.Object(
  {
    link_ttl_seconds: Type.Integer({ minimum: 30, maximum: 86_400, default: 600, description: 'How long an authorization link lives.' }),
    refresh_before_seconds: Type.Integer({
      minimum: 0,
      maximum: 3_600,
      default: 60,
      description: 'An access token this close to its expiry is refreshed before it is used.',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type OAuthProviderConfig = Static<typeof OAuthProviderSchema>;
export type UpstreamAuth = Static<typeof UpstreamAuthSchema>;
