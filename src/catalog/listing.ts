import { SEARCH_LIMIT, type ToolFormat } from '../protocol/catalog.js';
import { canDefer, maxToolsOf, renderTools, withDeferredLoading, wrapTools } from '../protocol/providers/index.js';
import { deferMatcher } from './defer.js';
import type { RegisteredTool } from '../registry/registry.js';
import { tokenize } from '../registry/search.js';
import type { CircuitStatus } from '../state/state-store.js';
import { tierOf } from '../tools/capabilities.js';
import { etagOf, keptFor } from './cache.js';
import { hides } from './hidden.js';

/** What GET /tools asks for, as its query string has it. */
export interface ListingQuery {
  format?: ToolFormat;
  strict?: boolean;
  include_unavailable?: boolean;
  q?: string;
  limit?: number;
  defer?: string;
  toolset?: string;
}

export function searchLimit(query: ListingQuery): number {
  return query.q === undefined ? Number.POSITIVE_INFINITY : (query.limit ?? SEARCH_LIMIT.listing);
}

function gatewayInfo(entry: RegisteredTool, circuit: CircuitStatus) {
  const upstream = entry.tool.upstream;
  return {
    available: !hides(circuit),
    circuit: { state: circuit.state, failures: circuit.failures, reopens_at: circuit.reopens_at },
    concurrency_safe: entry.concurrencySafe,
    requires_approval: entry.requiresApproval,
    timeout_ms: entry.timeoutMs,
    // Which upstream MCP server answers this tool's calls, under which name, and whether it is connected now.
    ...(upstream && { mcp_server: { name: upstream.server, tool: upstream.name, connected: upstream.connected() } }),
    // Bash: whether its commands run in bubblewrap, the setting that chose it, and which ALLOW table that gives.
    ...(entry.tool.sandbox && { sandbox: entry.tool.sandbox, tier: tierOf(entry.tool.sandbox) }),
  };
}

/** GET /tools/:name: the tool's schema and the gateway's settings for it. */
/** GET /tools/{name}'s answer. */
export interface ToolDescription {
  name: string;
  description: string;
  parameters: unknown;
  'x-toolgate': Record<string, unknown>;
}

export function describeTool(entry: RegisteredTool, circuit: CircuitStatus): ToolDescription {
  return {
    name: entry.name,
    description: entry.tool.description,
    parameters: entry.tool.parameters,
    'x-toolgate': {
      ...gatewayInfo(entry, circuit),
      rate_limit: entry.rateLimit
        ? { per_minute: entry.rateLimit.perMinute, ...(entry.rateLimit.per && { per: entry.rateLimit.per }) }
        : null,
    },
  };
}

/**
 * Rendered listings per registry version. Searches have their own, smaller bound: arbitrary queries then never evict the plain listings
 * that polling clients revalidate, and a search entry holds at most `limit` tools.
 */
/** A rendered listing: the `tools` value, its ETag, and what the caller should know of it (a limit it is over, a tool sent non-strict). */
export interface Listing {
  list: unknown[];
  etag: string;
  warnings?: string[];
  /** The provider's documented limit on a request's tools, when the listing has more. */
  overLimit?: number;
}

const listings = new WeakMap<readonly RegisteredTool[], Map<string, Listing>>();
const searches = new WeakMap<readonly RegisteredTool[], Map<string, Listing>>();
const KEPT = { listings: 256, searches: 128 };

/**
 * The listing of `entries`: with their `x-toolgate` object when given their circuits, and `defer_loading` where `?defer=` asks for it;
 * a warning for each tool sent without the strict mode asked for, and one when the provider's API takes fewer tools than listed.
 */
function rendered(
  query: ListingQuery,
  format: ToolFormat,
  entries: readonly RegisteredTool[],
  strict: boolean,
  circuits?: CircuitStatus[],
): Listing {
  const warnings: string[] = [];
  let tools = renderTools(
    format,
    entries.map((e) => e.tool),
    strict,
    (name, note) => warnings.push(`${name}: ${note}`),
  );
  const max = maxToolsOf(format);
  const over = max !== undefined && tools.length > max;
  if (over) {
    warnings.unshift(
      `${tools.length} tools, over the ${max} the ${format} API takes in one request: ask for fewer with ?q=<words>&limit=N or ?toolset=<name>`,
    );
  }
  if (circuits) tools = tools.map((t, i) => ({ ...t, 'x-toolgate': gatewayInfo(entries[i]!, circuits[i]!) }));
  if (query.defer !== undefined && canDefer(format)) tools = withDeferredLoading(format, tools, deferMatcher(query.defer));
  const list = wrapTools(format, tools);
  return { list, etag: etagOf(list), ...(warnings.length > 0 && { warnings }), ...(over && { overLimit: max }) };
}

/**
 * GET /tools' listing of `entries` (ranked when searching) and its ETag. A listing without live breaker details depends only on the
 * registry, the key, the query and which of the listed tools are hidden, so it is rendered and hashed once: a polling client's
 * `If-None-Match` then costs no rendering, however large the catalog.
 */
export function listTools(
  registry: readonly RegisteredTool[],
  listingKey: string,
  query: ListingQuery,
  entries: readonly RegisteredTool[],
  circuits: CircuitStatus[],
): Listing {
  const format = query.format ?? 'openai';
  const search = query.q !== undefined;
  const limit = searchLimit(query);
  const strict = (format === 'openai' || format === 'responses') && query.strict === true;
  if (query.include_unavailable) return rendered(query, format, entries.slice(0, limit), strict, circuits);
  const hidden = entries.flatMap((e, i) => (hides(circuits[i]!) ? [e.name] : []));
  const key = JSON.stringify([
    listingKey,
    format,
    strict,
    query.defer ?? null,
    search ? [limit, tokenize(query.q!).join(' ')] : null,
    hidden,
  ]);
  return keptFor(search ? searches : listings, registry, key, search ? KEPT.searches : KEPT.listings, () =>
    rendered(query, format, entries.filter((_, i) => !hides(circuits[i]!)).slice(0, limit), strict),
  );
}
