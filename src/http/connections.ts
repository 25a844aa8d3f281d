import { Type } from 'typebox';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import type { Vault } from '../vault/index.js';
import { refuseCrossOrigin } from './origin.js';
import { routes } from './routes.js';

const ConnectionSchema = Type.Object({
  provider: Type.String(),
  connected: Type.Boolean(),
  scopes: Type.Array(Type.String()),
  connected_at: Type.Optional(Type.String({ format: 'date-time' })),
  expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
});

const MineSchema = {
  summary: "The calling person's connections to the configured providers, without tokens",
  response: { 200: Type.Object({ connections: Type.Array(ConnectionSchema) }), ...errorResponses(400, 401, 403, 503) },
};

const DisconnectSchema = {
  summary: 'Revoke the grant at the provider (RFC 7009, where it can) and forget it',
  params: Type.Object({ provider: Type.String({ maxLength: 64 }) }),
  response: {
    200: Type.Object({ provider: Type.String(), forgotten: Type.Boolean(), revoked: Type.Boolean() }),
    ...errorResponses(400, 401, 403, 404, 503),
  },
};

const TenantSchema = {
  summary: "Every connection of the admin's tenant, without tokens",
  response: {
    200: Type.Object({ connections: Type.Array(Type.Intersect([Type.Object({ user: Type.String() }), ConnectionSchema])) }),
    ...errorResponses(401, 403, 503),
  },
};

/** The calling person: these routes are about a user's own grants, and a key's own call has none. */
function userOf(user: string | undefined): string {
  if (user === undefined) {
    throw new GatewayError('BAD_REQUEST', {
      message:
        "This route lists a person's connections, and the request names none: use their OAuth access token, or x-toolgate-user from a key with on_behalf.",
    });
  }
  return user;
}

/** GET and DELETE /me/connections for the calling person; GET /admin/connections for the admins of a tenant. */
export function connectionRoutes(vault: Vault) {
  return routes((app) => {
    app.get('/me/connections', { config: { scope: 'execute' }, schema: MineSchema }, async (request) => ({
      connections: await vault.connections(request.caller.tenant, userOf(request.caller.user)),
    }));

    app.delete(
      '/me/connections/:provider',
      { config: { scope: 'execute' }, preHandler: refuseCrossOrigin, schema: DisconnectSchema },
      async (request) => {
        const { provider } = request.params;
        const done = await vault.disconnect(request.caller.tenant, userOf(request.caller.user), provider);
        if (!done) throw new GatewayError('NOT_FOUND', { message: `No provider named ${JSON.stringify(provider)} is configured.` });
        request.log.info({ provider, revoked: done.revoked, forgotten: done.forgotten }, 'a person disconnected a provider');
        return { provider, ...done };
      },
    );

    app.get('/admin/connections', { config: { scope: 'admin' }, schema: TenantSchema }, async (request) => ({
      connections: await vault.tenantConnections(request.caller.tenant),
    }));
  });
}
