import { Type } from 'typebox';
import type { TokenVerifier } from '../identity/index.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import { routes } from './routes.js';

const MetadataSchema = {
  summary: "The resource's OAuth metadata (RFC 9728); 404 unless auth.oauth names an issuer",
  response: {
    200: Type.Object({
      resource: Type.String({ description: "This gateway's resource identifier: the first issuer's audience." }),
      authorization_servers: Type.Array(Type.String(), { description: 'The issuers whose tokens are accepted.' }),
      scopes_supported: Type.Array(Type.String(), { description: 'The token scopes that map to toolgate scopes.' }),
      bearer_methods_supported: Type.Array(Type.Literal('header')),
    }),
    ...errorResponses(404),
  },
};

/** Public: MCP clients read it from a 401's `resource_metadata` to find where to get a token. `/mcp` is the path-suffixed form. */
export function oauthMetadataRoutes(tokens: TokenVerifier | undefined) {
  return routes((app) => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      app.get(path, { schema: MetadataSchema }, async () => {
        if (!tokens) throw new GatewayError('NOT_FOUND', { message: 'This gateway accepts API keys only (no auth.oauth issuer).' });
        return tokens.metadata;
      });
    }
  });
}
