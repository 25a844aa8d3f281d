import { Type } from 'typebox';
import type { PipelineDeps } from '../pipeline/types.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import { routes } from './routes.js';
import { inToolset, ToolsetParam } from './toolsets.js';

/**
 * The upstream MCP servers' resources, templates and prompts over REST, as /mcp serves them (docs/mcp.md, "Resources and prompts"): the
 * same names and URIs, keys, toolsets, policy, guardrails and budget. The objects are MCP's, as the servers gave them (camelCase fields).
 */

const McpObjects = (description: string) => Type.Array(Type.Unknown(), { description });
const Uri = Type.String({ minLength: 1, maxLength: 8192, description: 'A gateway resource URI: `<server>+<upstream URI>`.' });
const Toolset = Type.Object({ toolset: Type.Optional(ToolsetParam) });

const ResourcesSchema = {
  summary: "The upstream servers' resources and resource templates the key may read",
  querystring: Toolset,
  response: {
    200: Type.Object({
      resources: McpObjects('MCP Resource objects, each `uri` `<server>+<upstream URI>` and `name` with the prefix.'),
      resource_templates: McpObjects('MCP ResourceTemplate objects, `uriTemplate` namespaced the same way.'),
    }),
    ...errorResponses(401, 403, 404),
  },
};

const ReadSchema = {
  summary: 'Read one resource of an upstream server',
  querystring: Type.Object({ uri: Uri, toolset: Type.Optional(ToolsetParam) }),
  response: {
    200: Type.Object({
      contents: McpObjects(
        "MCP resource contents ({uri, mimeType, text|blob}); one over the per-call budget is cut, its `_meta['toolgate/truncated']` the record of the whole.",
      ),
    }),
    ...errorResponses(400, 401, 403, 404, 502, 504),
  },
};

const PromptsSchema = {
  summary: "The upstream servers' prompts the key may get",
  querystring: Toolset,
  response: {
    200: Type.Object({ prompts: McpObjects('MCP Prompt objects, each `name` with the prefix.') }),
    ...errorResponses(401, 403, 404),
  },
};

const PromptSchema = {
  summary: 'Get one prompt of an upstream server, with its arguments',
  params: Type.Object({ name: Type.String({ maxLength: 200 }) }),
  querystring: Toolset,
  body: Type.Object(
    { arguments: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "The prompt's arguments, strings." })) },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object({
      description: Type.Optional(Type.String()),
      messages: McpObjects('MCP PromptMessage objects, credentials redacted.'),
    }),
    ...errorResponses(400, 401, 403, 404, 502, 504),
  },
};

export function offersRoutes(deps: PipelineDeps) {
  const offers = () => {
    if (!deps.offers)
      throw new GatewayError('NOT_FOUND', { message: 'No upstream MCP server is configured: there are no resources or prompts.' });
    return deps.offers;
  };
  return routes((app) => {
    app.get('/resources', { config: { scope: 'execute' }, schema: ResourcesSchema }, async (request) => {
      const caller = inToolset(request.caller, request.query.toolset, deps.config.toolsets);
      if (!deps.offers) return { resources: [], resource_templates: [] };
      return { resources: deps.offers.resources(caller), resource_templates: deps.offers.templates(caller) };
    });

    app.get('/resources/read', { config: { scope: 'execute' }, schema: ReadSchema }, async (request) => {
      const caller = inToolset(request.caller, request.query.toolset, deps.config.toolsets);
      return offers().readResource(caller, request.query.uri, request.log);
    });

    app.get('/prompts', { config: { scope: 'execute' }, schema: PromptsSchema }, async (request) => {
      const caller = inToolset(request.caller, request.query.toolset, deps.config.toolsets);
      return { prompts: deps.offers ? deps.offers.prompts(caller) : [] };
    });

    app.post('/prompts/:name', { config: { scope: 'execute' }, schema: PromptSchema }, async (request) => {
      const caller = inToolset(request.caller, request.query.toolset, deps.config.toolsets);
      return offers().getPrompt(caller, request.params.name, request.body.arguments ?? {});
    });
  });
}
