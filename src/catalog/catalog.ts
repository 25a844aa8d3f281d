import type { FastifyBaseLogger } from 'fastify';
import type { ToolFormat } from '../protocol/catalog.js';
import { renderTools, wrapTools } from '../protocol/providers/index.js';
import type { RegisteredTool, ToolRegistry } from '../registry/registry.js';
import { hasSearchWords, searchTools } from '../registry/search.js';
import type { CircuitStatus } from '../state/state-store.js';
import type { CatalogView } from '../tools/tool.js';
import { keptFor } from './cache.js';
import { hides } from './hidden.js';
import { describeTool, listTools, searchLimit, type Listing, type ListingQuery, type ToolDescription } from './listing.js';

/** Who asks: the key's tool filter, and what its listings are cached by. */
interface CatalogCaller {
  keyId: string;
  /** The toolset the request asked for; listings are cached per set. */
  toolset?: string;
  allows(tool: string): boolean;
}

/** Each tool's breaker as the caller sees it, in the order of `entries`. */
type ReadCircuits<C> = (entries: readonly RegisteredTool[], caller: C, log?: FastifyBaseLogger) => Promise<CircuitStatus[]>;

/** What the listing caches are keyed by: the key, and the toolset when the request named one. */
function listingKeyOf(caller: CatalogCaller): string {
  return caller.toolset === undefined ? caller.keyId : `${caller.keyId}\n${caller.toolset}`;
}

const allowedByKey = new WeakMap<readonly RegisteredTool[], Map<string, readonly RegisteredTool[]>>();

/** The tools an API key (within the request's toolset) may use: fixed for them and a registry version. */
function allowedFor(registry: readonly RegisteredTool[], caller: CatalogCaller): readonly RegisteredTool[] {
  return keptFor(allowedByKey, registry, listingKeyOf(caller), 256, () => registry.filter((e) => caller.allows(e.name)));
}

/** The tools a caller sees, as GET /tools, /mcp's tools/list and tool_search list them. */
export interface Catalog<C extends CatalogCaller> {
  /** GET /tools: the rendered listing (or search) and its ETag. */
  list(caller: C, query: ListingQuery, log?: FastifyBaseLogger): Promise<Listing>;
  /** GET /tools/:name: the tool with its gateway settings; undefined when the caller may not use it or there is none. */
  describe(caller: C, name: string, log?: FastifyBaseLogger): Promise<ToolDescription | undefined>;
  /** The tools the caller may use whose breaker is not open (/mcp's tools/list). */
  visible(caller: C, log?: FastifyBaseLogger): Promise<RegisteredTool[]>;
  /** The view tool_search gets in its context: GET /tools?q= for the request's key. */
  view(caller: C, format: ToolFormat, log?: FastifyBaseLogger): CatalogView;
}

export function createCatalog<C extends CatalogCaller>(
  registry: Pick<ToolRegistry, 'list' | 'get'>,
  circuits: ReadCircuits<C>,
): Catalog<C> {
  /**
   * The best matches for `query` among the tools the caller's key may use, best first, each with its breaker as the caller sees it: at
   * least `limit` of them whose breaker is not open, unless fewer match. Only the breakers of the tools ranked are read: one read of
   * `limit` keys, and one more for each round that found open breakers among them, never the whole catalog.
   */
  async function search(query: string, limit: number, caller: C, log?: FastifyBaseLogger) {
    const tools = registry.list();
    const allows = (e: RegisteredTool) => caller.allows(e.name);
    for (let want = limit; ;) {
      const matches = searchTools(tools, query, want, allows);
      const states = await circuits(matches, caller, log);
      const open = states.filter(hides).length;
      if (matches.length < want || matches.length - open >= limit) return { matches, circuits: states };
      want += limit - (matches.length - open);
    }
  }

  return {
    async list(caller, query, log) {
      const tools = registry.list();
      if (query.q === undefined) {
        const entries = allowedFor(tools, caller);
        return listTools(tools, listingKeyOf(caller), query, entries, await circuits(entries, caller, log));
      }
      const found = await search(query.q, searchLimit(query), caller, log);
      return listTools(tools, listingKeyOf(caller), query, found.matches, found.circuits);
    },

    async describe(caller, name, log) {
      const entry = registry.get(name);
      if (!entry || !caller.allows(entry.name)) return undefined;
      const [circuit] = await circuits([entry], caller, log);
      return describeTool(entry, circuit!);
    },

    async visible(caller, log) {
      const allowed = registry.list().filter((e) => caller.allows(e.name));
      const states = await circuits(allowed, caller, log);
      return allowed.filter((_, i) => !hides(states[i]!));
    },

    view(caller, format, log) {
      return {
        format,
        hasSearchWords,
        async search(query, { limit, format, exclude }) {
          // One more than asked for, in case `exclude` is among them.
          const { matches, circuits: states } = await search(query, limit + 1, caller, log);
          const found = matches.filter((e, i) => !hides(states[i]!) && e.name !== exclude).slice(0, limit);
          return {
            tools: wrapTools(
              format,
              renderTools(
                format,
                found.map((e) => e.tool),
                false,
              ),
            ),
            names: found.map((e) => e.name),
          };
        },
      };
    },
  };
}
