import { Type } from 'typebox';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses, schemaRef } from '../protocol/schemas.js';
import { breakerScope } from '../pipeline/gates/breaker.js';
import type { PipelineDeps } from '../pipeline/types.js';
import { refuseCrossOrigin } from './origin.js';
import { routes } from './routes.js';

const CircuitsSchema = {
  summary: "Every tool's breaker state",
  response: { 200: Type.Object({ circuits: Type.Array(schemaRef('Circuit')) }), ...errorResponses(401, 403, 503) },
};

const ResetSchema = {
  summary: 'Force a breaker closed',
  params: Type.Object({ tool: Type.String({ maxLength: 200 }) }),
  response: { 200: schemaRef('Circuit'), ...errorResponses(401, 403, 404, 503) },
};

/**
 * Circuits of the tools the key may use, under the caller's breaker scope: with `per_tenant_breakers` an admin of tenant T sees and resets
 * T's breakers only, otherwise the shared ones. The loopback caller is tenant "local", that of every call made without keys.
 */
export function adminRoutes(deps: PipelineDeps) {
  return routes((app) => {
    app.get('/circuits', { config: { scope: 'admin' }, schema: CircuitsSchema }, async (request) => {
      const entries = deps.registry.list().filter((e) => request.caller.allows(e.name));
      const scopes = entries.map((e) => breakerScope(e, request.caller, deps));
      const circuits = await deps.state.circuits(scopes, deps.clock.now());
      return {
        circuits: circuits.map((c, i) => ({ tool: entries[i]!.name, state: c.state, failures: c.failures, reopens_at: c.reopens_at })),
      };
    });

    app.post(
      '/circuits/:tool/reset',
      { config: { scope: 'admin' }, preHandler: refuseCrossOrigin, schema: ResetSchema },
      async (request) => {
        const { tool } = request.params;
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
  });
}
