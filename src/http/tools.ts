import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { allowedFor, keptFor, listingKeyOf, searchAllowed } from '../pipeline/catalog.js';
import { circuitsFor } from '../pipeline/circuits.js';
import type { PipelineDeps } from '../pipeline/types.js';
import { MAX_QUERY_CHARS, SEARCH_LIMIT, TOOL_FORMATS, type ToolFormat } from '../protocol/catalog.js';
import { sha256Hex } from '../protocol/canonical.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import { canDefer, deferMatcher, renderTools, withDeferredLoading, wrapTools } from '../registry/dialects/index.js';
import type { RegisteredTool } from '../registry/registry.js';
import { hasSearchWords, tokenize } from '../registry/search.js';
import type { CircuitStatus } from '../state/state-store.js';
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

interface ToolsQueryValue {
  format?: ToolFormat;
  strict?: boolean;
  include_unavailable?: boolean;
  q?: string;
  limit?: number;
  defer?: string;
  toolset?: string;
}

function gatewayInfo(entry: RegisteredTool, circuit: CircuitStatus) {
  const upstream = entry.tool.upstream;
  return {
    available: circuit.state !== 'open',
    circuit: { state: circuit.state, failures: circuit.failures, reopens_at: circuit.reopens_at },
    concurrency_safe: entry.concurrencySafe,
    requires_approval: entry.requiresApproval,
    timeout_ms: entry.timeoutMs,
    // Which upstream MCP server answers this tool's calls, under which name, and whether it is connected now.
    ...(upstream && { mcp_server: { name: upstream.server, tool: upstream.name, connected: upstream.connected() } }),
    // Bash: whether its commands run in bubblewrap, and the setting that chose it.
    ...(entry.tool.sandbox && { sandbox: entry.tool.sandbox }),
  };
}

function etagOf(list: unknown[]): string {
  return `"${sha256Hex(JSON.stringify(list)).slice(0, 32)}"`;
}

/**
 * Rendered listings per registry version. Searches have their own, smaller
 * bound: arbitrary queries then never evict the plain listings that polling
 * clients revalidate, and a search entry holds at most `limit` tools.
 */
const listings = new WeakMap<readonly RegisteredTool[], Map<string, { list: unknown[]; etag: string }>>();
const searches = new WeakMap<readonly RegisteredTool[], Map<string, { list: unknown[]; etag: string }>>();
const KEPT = { listings: 256, searches: 128 };

/**
 * A listing without live breaker details depends only on the registry, the
 * key, the query and which of the listed tools have an open breaker, so it is
 * rendered and hashed once: a polling client's `If-None-Match` then costs no
 * rendering, however large the catalog.
 */
function cachedListing(
  search: boolean,
  registry: readonly RegisteredTool[],
  key: string,
  make: () => unknown[],
): { list: unknown[]; etag: string } {
  return keptFor(search ? searches : listings, registry, key, search ? KEPT.searches : KEPT.listings, () => {
    const list = make();
    return { list, etag: etagOf(list) };
  });
}

/**
 * The rendered tools of a response: with their `x-toolgate` object when given their circuits, and `defer_loading` where `?defer=` asks for
 * it.
 */
function rendered(
  query: ToolsQueryValue,
  format: ToolFormat,
  entries: readonly RegisteredTool[],
  strict: boolean,
  circuits?: CircuitStatus[],
): Record<string, unknown>[] {
  let tools = renderTools(
    format,
    entries.map((e) => e.tool),
    strict,
  );
  if (circuits) tools = tools.map((t, i) => ({ ...t, 'x-toolgate': gatewayInfo(entries[i]!, circuits[i]!) }));
  if (query.defer === undefined || !canDefer(format)) return tools;
  return withDeferredLoading(format, tools, deferMatcher(query.defer));
}

export function toolsRoutes(deps: PipelineDeps) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get(
      '/tools',
      {
        config: { scope: 'execute' },
        schema: {
          summary: 'Tool schemas in the dialect of a model provider',
          querystring: ToolsQuery,
          response: {
            200: Type.Object({ tools: Type.Array(Type.Unknown()), version: Type.String() }),
            304: Type.Null(),
            ...errorResponses(400, 401, 403, 404),
          },
        },
      },
      async (request, reply) => {
        const query = request.query as ToolsQueryValue;
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
        const registry = deps.registry.list();
        const search = query.q !== undefined;
        const limit = search ? (query.limit ?? SEARCH_LIMIT.listing) : Number.POSITIVE_INFINITY;
        let entries: readonly RegisteredTool[];
        let circuits: CircuitStatus[];
        if (search) {
          ({ matches: entries, circuits } = await searchAllowed(query.q!, limit, caller, deps, request.log));
        } else {
          entries = allowedFor(registry, caller);
          circuits = await circuitsFor(entries, caller, deps, request.log);
        }
        const strict = (format === 'openai' || format === 'responses') && query.strict === true;
        let list: unknown[];
        let etag: string;
        if (query.include_unavailable) {
          list = wrapTools(format, rendered(query, format, entries.slice(0, limit), strict, circuits));
          etag = etagOf(list);
        } else {
          // Rendered only when this key (and toolset), format, query and set of open breakers was not seen yet.
          const hidden = entries.flatMap((e, i) => (circuits[i]!.state === 'open' ? [e.name] : []));
          const key = JSON.stringify([
            listingKeyOf(caller),
            format,
            strict,
            query.defer ?? null,
            search ? [limit, tokenize(query.q!).join(' ')] : null,
            hidden,
          ]);
          ({ list, etag } = cachedListing(search, registry, key, () =>
            wrapTools(format, rendered(query, format, entries.filter((_, i) => circuits[i]!.state !== 'open').slice(0, limit), strict)),
          ));
        }
        reply.header('etag', etag).header('cache-control', 'no-cache');
        const match = request.headers['if-none-match'];
        if (typeof match === 'string' && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
          return reply.code(304).send();
        }
        return { tools: list, version: etag.slice(1, -1) };
      },
    );

    app.get(
      '/tools/:name',
      {
        config: { scope: 'execute' },
        schema: {
          summary: 'One tool: its schema, gateway settings and circuit state',
          params: Type.Object({ name: Type.String({ maxLength: 200 }) }),
          querystring: Type.Object({ toolset: Type.Optional(ToolsetParam) }),
          response: {
            200: Type.Object({
              name: Type.String(),
              description: Type.String(),
              parameters: Type.Unknown(),
              'x-toolgate': Type.Unknown(),
            }),
            ...errorResponses(401, 403, 404),
          },
        },
      },
      async (request) => {
        const { name } = request.params as { name: string };
        // As GET /tools lists it: a tool outside the set is not found, like one the key may not use.
        const caller = inToolset(request.caller, (request.query as { toolset?: string }).toolset, deps.config.toolsets);
        const entry = deps.registry.get(name);
        if (!entry || !caller.allows(entry.name))
          throw new GatewayError('NOT_FOUND', { message: `No tool named ${JSON.stringify(name)}.` });
        const [circuit] = await circuitsFor([entry], caller, deps, request.log);
        return {
          name: entry.name,
          description: entry.tool.description,
          parameters: entry.tool.parameters,
          'x-toolgate': { ...gatewayInfo(entry, circuit!), rate_limit: entry.rateLimit ? { per_minute: entry.rateLimit.perMinute } : null },
        };
      },
    );
  };
}
