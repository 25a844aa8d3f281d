import { Type, type Static } from 'typebox';

/** Asymmetric JWS algorithms only: `none` and HS* (a public key used as an HMAC secret) can never be configured. */
const ALGORITHM = '^(RS256|RS384|RS512|PS256|PS384|PS512|ES256|ES384|ES512|EdDSA|Ed25519)$';

const ToolgateScope = Type.Union([Type.Literal('execute'), Type.Literal('admin')]);

/** One authorization server whose access tokens this gateway accepts (docs/auth.md, "OAuth access tokens"). */
export const OAuthIssuerSchema = Type.Object(
  {
    issuer: Type.String({
      pattern: '^https?://[^\\s?#]+$',
      description:
        "The issuer URL, exactly as its tokens' `iss` names it; metadata from <issuer>/.well-known/oauth-authorization-server, else openid-configuration (RFC 8414).",
    }),
    audience: Type.String({
      minLength: 1,
      description: "This gateway's resource identifier (RFC 8707): a token's `aud` must name it.",
    }),
    tenant_claim: Type.Optional(Type.String({ minLength: 1, description: 'The claim holding the tenant; or `tenant`.' })),
    tenant: Type.Optional(
      Type.String({
        pattern: '^(?!\\.{1,2}$)[A-Za-z0-9_.-]{1,64}$',
        description: 'A fixed tenant for every token of this issuer; or `tenant_claim`.',
      }),
    ),
    user_claim: Type.String({ minLength: 1, default: 'sub', description: 'The claim naming the user.' }),
    scopes_map: Type.Record(Type.String({ minLength: 1 }), ToolgateScope, {
      default: { 'toolgate:execute': 'execute', 'toolgate:admin': 'admin' },
      description: 'Token scope → toolgate scope (`execute` or `admin`).',
    }),
    tools_claim: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A claim (a list, or a space-separated string) of tool names or globs that narrows the caller's tools, as a key's `tools`.",
      }),
    ),
    algorithms: Type.Array(Type.String({ pattern: ALGORITHM }), {
      minItems: 1,
      uniqueItems: true,
      default: ['RS256', 'ES256', 'EdDSA'],
      description: 'The JWS algorithms accepted: asymmetric ones only (RS*, PS*, ES*, EdDSA).',
    }),
    clock_tolerance_s: Type.Integer({ minimum: 0, maximum: 300, default: 30, description: 'Leeway for `exp`, `nbf` and `iat`.' }),
    introspection: Type.Optional(
      Type.Object(
        {
          client_id: Type.String({ minLength: 1 }),
          client_secret_env: Type.String({
            pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
            description: 'The environment variable holding the client secret.',
          }),
          cache_ms: Type.Integer({
            minimum: 0,
            maximum: 3_600_000,
            default: 60_000,
            description: "An answer is reused at most this long, and never past the token's `exp`.",
          }),
        },
        {
          additionalProperties: false,
          description: 'Tokens that are not JWTs are checked at the discovered introspection_endpoint (RFC 7662).',
        },
      ),
    ),
    lazy: Type.Boolean({
      default: false,
      description: 'An issuer not discoverable at start-up is a warning, retried; its tokens answer 503 until it is discovered.',
    }),
  },
  { additionalProperties: false },
);

export type OAuthIssuerConfig = Static<typeof OAuthIssuerSchema>;
