import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sha256Hex } from '../protocol/canonical.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import { circuitsFor } from '../pipeline/circuits.js';
import type { Caller, PipelineDeps } from '../pipeline/types.js';
import { toAnthropic, toGemini, toMcp, toOpenAI, toResponses } from '../registry/dialects/index.js';
import type { RegisteredTool } from '../registry/registry.js';
import type { CircuitStatus } from '../state/state-store.js';

const FORMATS = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const;
const Format = Type.Union(FORMATS.map((f) => Type.Literal(f)));
type FormatName = (typeof FORMATS)[number];

const ToolsQuery = Type.Object({
  format: Type.Optional(Format),
  strict: Type.Optional(Type.Boolean({ description: 'openai and responses: emit strict-mode schemas.' })),
  include_unavailable: Type.Optional(Type.Boolean({ description: 'List every tool the key may use, with an x-toolgate object.' })),
});

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

/** The `tools` value of each format, one element per tool (gemini's single wrapper is added after). */
function render(format: FormatName, entries: readonly RegisteredTool[], strict: boolean): Record<string, unknown>[] {
  const tools = entries.map((e) => e.tool);
  switch (format) {
    case 'openai':
      return toOpenAI(tools, { strict }) as unknown as Record<string, unknown>[];
    case 'responses':
      return toResponses(tools, { strict }) as unknown as Record<string, unknown>[];
    case 'anthropic':
      return toAnthropic(tools) as unknown as Record<string, unknown>[];
    case 'mcp':
      return toMcp(tools) as unknown as Record<string, unknown>[];
    case 'gemini':
      return (toGemini(tools)[0]?.functionDeclarations ?? []) as unknown as Record<string, unknown>[];
  }
}

function wrap(format: FormatName, tools: Record<string, unknown>[]): unknown[] {
  return format === 'gemini' ? [{ functionDeclarations: tools }] : tools;
}

function etagOf(list: unknown[]): string {
  return `"${sha256Hex(JSON.stringify(list)).slice(0, 32)}"`;
}

/** Per registry version (its tool array): what was worked out for it, at most this many entries of each kind. */
const KEPT = 256;
const listings = new WeakMap<readonly RegisteredTool[], Map<string, { list: unknown[]; etag: string }>>();
const allowedByKey = new WeakMap<readonly RegisteredTool[], Map<string, readonly RegisteredTool[]>>();

function keptFor<V>(cache: WeakMap<readonly RegisteredTool[], Map<string, V>>, registry: readonly RegisteredTool[], key: string, make: () => V): V {
  let kept = cache.get(registry);
  if (!kept) cache.set(registry, (kept = new Map()));
  let value = kept.get(key);
  if (value === undefined) {
    value = make();
    if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
    kept.set(key, value);
  }
  return value;
}

/** The tools an API key may use: fixed for a key and a registry version. */
function allowedFor(registry: readonly RegisteredTool[], caller: Caller): readonly RegisteredTool[] {
  return keptFor(allowedByKey, registry, caller.keyId, () => registry.filter((e) => caller.allows(e.name)));
}

/**
 * A listing without live breaker details depends only on the registry, the
 * key, the format and which of the key's tools have an open breaker, so it is
 * rendered and hashed once: a polling client's `If-None-Match` then costs no
 * rendering, however large the catalog.
 */
function cachedListing(registry: readonly RegisteredTool[], key: string, make: () => unknown[]): { list: unknown[]; etag: string } {
  return keptFor(listings, registry, key, () => {
    const list = make();
    return { list, etag: etagOf(list) };
  });
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
          response: { 200: Type.Object({ tools: Type.Array(Type.Unknown()), version: Type.String() }), 304: Type.Null(), ...errorResponses(400, 401, 403) },
        },
      },
      async (request, reply) => {
        const query = request.query as { format?: FormatName; strict?: boolean; include_unavailable?: boolean };
        const format = query.format ?? 'openai';
        const allowed = allowedFor(deps.registry.list(), request.caller);
        const circuits = await circuitsFor(allowed, request.caller, deps, request.log);
        const strict = (format === 'openai' || format === 'responses') && query.strict === true;
        let list: unknown[];
        let etag: string;
        if (query.include_unavailable) {
          list = wrap(format, render(format, allowed, strict).map((t, i) => ({ ...t, 'x-toolgate': gatewayInfo(allowed[i]!, circuits[i]!) })));
          etag = etagOf(list);
        } else {
          // Rendered only when this key, format and set of open breakers was not seen yet.
          const hidden = allowed.flatMap((e, i) => (circuits[i]!.state === 'open' ? [e.name] : []));
          ({ list, etag } = cachedListing(deps.registry.list(), `${request.caller.keyId}\n${format}\n${strict}\n${hidden.join('\n')}`, () =>
            wrap(format, render(format, allowed.filter((_, i) => circuits[i]!.state !== 'open'), strict)),
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
        const entry = deps.registry.get(name);
        if (!entry || !request.caller.allows(entry.name)) throw new GatewayError('NOT_FOUND', { message: `No tool named ${JSON.stringify(name)}.` });
        const [circuit] = await circuitsFor([entry], request.caller, deps, request.log);
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
