import { Type } from 'typebox';
import type { PipelineDeps } from '../pipeline/types.js';
import { MAX_QUERY_CHARS, SEARCH_LIMIT, TOOL_FORMATS } from '../protocol/catalog.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import { canDefer } from '../protocol/providers/index.js';
import { hasSearchWords } from '../registry/search.js';
import { routes } from './routes.js';
import { inToolset, ToolsetParam } from './toolsets.js';

const Format = Type.Union(TOOL_FORMATS.map((f) => Type.Literal(f)));

const ToolsQuery = Type.Object({
  format: Type.Optional(Format),
  strict: Type.Optional(Type.Boolean({ description: 'openai and responses: emit strict-mode schemas.' })),
  include_unavailable: Type.Optional(Type.Boolean({ description: 'List every tool the key may use, with an x-toolgate object.' })),
  q: Type.Optional(
    Type.String({
      maxLength: MAX_QUERY_CHARS,
      description:
        'Words describing the tools wanted: only the `limit` most relevant are returned, best first. One with no search words (empty, blank) is a 400.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: SEARCH_LIMIT.max, description: `With q: how many tools (default ${SEARCH_LIMIT.listing}).` }),
  ),
  defer: Type.Optional(
    Type.String({
      maxLength: MAX_QUERY_CHARS,
      description:
        "anthropic and responses: comma-separated tool names or globs to mark defer_loading (`*` all, `!name` keeps one loaded); the provider's tool search tool is added first.",
    }),
  ),
  toolset: Type.Optional(ToolsetParam),
});

/** A 304 has no body: the handler sends none, the document says null. */
const NotModified = Type.Unsafe<undefined>(Type.Null());

const ToolsSchema = {
  summary: 'Tool schemas in the dialect of a model provider',
  querystring: ToolsQuery,
  response: {
    200: Type.Object({
      tools: Type.Array(Type.Unknown()),
      version: Type.String(),
      warnings: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "What the caller should know before sending these tools: more of them than the format's API takes in one request (narrow with q or toolset), a tool sent without the strict mode asked for and why.",
        }),
      ),
    }),
    304: NotModified,
    ...errorResponses(400, 401, 403, 404),
  },
};

const ToolSchema = {
  summary: 'One tool: its schema, gateway settings and circuit state',
  params: Type.Object({ name: Type.String({ maxLength: 200 }) }),
  querystring: Type.Object({ toolset: Type.Optional(ToolsetParam) }),
  response: {
    200: Type.Object({
      name: Type.String(),
      description: Type.String(),
      parameters: Type.Unknown(),
      'x-toolgate': Type.Unknown({
        description:
          "The gateway's settings for the tool; for Bash also `sandbox` ({mode, setting, fail_closed}) and `tier` (`sandbox` or `none`: which commands run without an approval, docs/bash.md).",
      }),
    }),
    ...errorResponses(401, 403, 404),
  },
};

export function toolsRoutes(deps: PipelineDeps) {
  const { catalog } = deps;
  return routes((app) => {
    app.get(
      '/tools',
      {
        config: { scope: 'execute' },
        schema: ToolsSchema,
      },
      async (request, reply) => {
        const { query } = request;
        const format = query.format ?? 'openai';
        const caller = inToolset(request.caller, query.toolset, deps.config.toolsets);
        if (query.defer !== undefined && !canDefer(format)) {
          throw new GatewayError('BAD_REQUEST', {
            message: `defer is for format=anthropic and format=responses, whose APIs load deferred tools through their own tool search; ${format} has no deferred loading: use ?q= or the tool_search built-in instead.`,
          });
        }
        if (query.limit !== undefined && query.q === undefined)
          throw new GatewayError('BAD_REQUEST', { message: 'limit goes with q: it bounds a search.' });
        if (query.q !== undefined && !hasSearchWords(query.q)) {
          throw new GatewayError('BAD_REQUEST', {
            message:
              'q has no search words (it is empty, blank, punctuation or only words like "the"): send words describing the tools wanted, or leave q out for the whole listing.',
            details: { errors: [{ path: '/q', message: 'has no search words' }] },
          });
        }
        const { list, etag, warnings, overLimit } = await catalog.list(caller, query, request.log);
        reply.header('etag', etag).header('cache-control', 'no-cache');
        if (overLimit !== undefined) reply.header('x-toolgate-tool-limit', String(overLimit));
        const match = request.headers['if-none-match'];
        if (typeof match === 'string' && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
          return reply.code(304).send();
        }
        return { tools: list, version: etag.slice(1, -1), ...(warnings && { warnings }) };
      },
    );

    app.get(
      '/tools/:name',
      {
        config: { scope: 'execute' },
        schema: ToolSchema,
      },
      async (request) => {
        const { name } = request.params;
        // As GET /tools lists it: a tool outside the set is not found, like one the key may not use.
        const caller = inToolset(request.caller, request.query.toolset, deps.config.toolsets);
        const tool = await catalog.describe(caller, name, request.log);
        if (!tool) throw new GatewayError('NOT_FOUND', { message: `No tool named ${JSON.stringify(name)}.` });
        return tool;
      },
    );
  });
}
