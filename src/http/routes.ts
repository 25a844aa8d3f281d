import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';

type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/**
 * A group of routes as a plugin whose handlers get `request.params`, `query`, `body` and `headers` typed from the route's TypeBox schema.
 * The provider only types: validation and serialization stay fastify's ajv, so the schemas are the JSON Schemas the OpenAPI document shows.
 */
export function routes(register: (app: RouteApp) => void): FastifyPluginAsync {
  return async (app) => register(app.withTypeProvider<TypeBoxTypeProvider>());
}
