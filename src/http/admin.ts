import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses, schemaRef } from '../protocol/schemas.js';
import { breakerScope } from '../pipeline/gates/breaker.js';
import type { PipelineDeps } from '../pipeline/types.js';
import { refuseCrossOrigin } from './origin.js';

/**
 * Operators' circuit routes (approvals: approvals.ts). Circuits are those of the tools the key may use, under
 * the caller's breaker scope: with `per_tenant_breakers` an admin of tenant T
 * sees and resets T's breakers only, otherwise the shared ones. The loopback
 * caller is tenant "local", the tenant of every call made without keys, so it
 * sees the breakers those calls trip.
 */
export function adminRoutes(deps: PipelineDeps) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get(
      '/circuits',
      {
        config: { scope: 'admin' },
        schema: {
          summary: "Every tool's breaker state",
          response: { 200: Type.Object({ circuits: Type.Array(schemaRef('Circuit')) }), ...errorResponses(401, 403, 503) },
        },
      },
      async (request) => {
        const entries = deps.registry.list().filter((e) => request.caller.allows(e.name));
        const scopes = entries.map((e) => breakerScope(e, request.caller, deps));
        const circuits = await deps.state.circuits(scopes, deps.clock.now());
        return {
          circuits: circuits.map((c, i) => ({ tool: entries[i]!.name, state: c.state, failures: c.failures, reopens_at: c.reopens_at })),
        };
      },
    );

    app.post(
      '/circuits/:tool/reset',
      {
        config: { scope: 'admin' },
        preHandler: refuseCrossOrigin,
        schema: {
          summary: 'Force a breaker closed',
          params: Type.Object({ tool: Type.String({ maxLength: 200 }) }),
          response: { 200: schemaRef('Circuit'), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => {
        const { tool } = request.params as { tool: string };
        const entry = deps.registry.get(tool);
        if (!entry || !request.caller.allows(entry.name))
          throw new GatewayError('NOT_FOUND', { message: `No tool named ${JSON.stringify(tool)}.` });
        const scope = breakerScope(entry, request.caller, deps);
        await deps.state.resetCircuit(scope);
        request.log.info({ tool, scope, key_id: request.caller.keyId }, 'circuit reset');
        const [circuit] = await deps.state.circuits([scope], deps.clock.now());
        return { tool, state: circuit!.state, failures: circuit!.failures, reopens_at: circuit!.reopens_at };
      },
    );
  };
}
