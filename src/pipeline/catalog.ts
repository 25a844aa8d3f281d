import type { FastifyBaseLogger } from 'fastify';
import { renderTools, wrapTools } from '../registry/dialects/index.js';
import type { RegisteredTool } from '../registry/registry.js';
import { hasSearchWords, searchTools } from '../registry/search.js';
import type { CircuitStatus } from '../state/state-store.js';
import type { CatalogView } from '../tools/tool.js';
import { circuitsFor } from './circuits.js';
import type { Caller, ExecContext, PipelineDeps } from './types.js';

/** Per registry version (its tool array): what was worked out for it, at most `kept` entries of each kind, the oldest going first. */
export function keptFor<V>(
  cache: WeakMap<readonly RegisteredTool[], Map<string, V>>,
  registry: readonly RegisteredTool[],
  key: string,
  kept: number,
  make: () => V,
): V {
  let entries = cache.get(registry);
  if (!entries) cache.set(registry, (entries = new Map()));
  let value = entries.get(key);
  if (value === undefined) {
    value = make();
    if (entries.size >= kept) entries.delete(entries.keys().next().value!);
    entries.set(key, value);
  }
  return value;
}

const allowedByKey = new WeakMap<readonly RegisteredTool[], Map<string, readonly RegisteredTool[]>>();

/** What the listing caches are keyed by: the key, and the toolset when the request named one. */
export function listingKeyOf(caller: Caller): string {
  return caller.toolset === undefined ? caller.keyId : `${caller.keyId}\n${caller.toolset}`;
}

/** The tools an API key (within the request's toolset) may use: fixed for them and a registry version. */
export function allowedFor(registry: readonly RegisteredTool[], caller: Caller): readonly RegisteredTool[] {
  return keptFor(allowedByKey, registry, listingKeyOf(caller), 256, () => registry.filter((e) => caller.allows(e.name)));
}

/**
 * The best matches for `query` among the tools the caller's key may use,
 * best first, each with its breaker as the caller sees it: at least `limit`
 * of them whose breaker is not open, unless fewer match. Only the breakers of
 * the tools ranked are read: one read of `limit` keys, and one more for each
 * round that found open breakers among them, never the whole catalog.
 */
export async function searchAllowed(
  query: string,
  limit: number,
  caller: Caller,
  deps: PipelineDeps,
  log?: FastifyBaseLogger,
): Promise<{ matches: RegisteredTool[]; circuits: CircuitStatus[] }> {
  const registry = deps.registry.list();
  const allows = (e: RegisteredTool) => caller.allows(e.name);
  for (let want = limit; ;) {
    const matches = searchTools(registry, query, want, allows);
    const circuits = await circuitsFor(matches, caller, deps, log);
    const open = circuits.filter((c) => c.state === 'open').length;
    if (matches.length < want || matches.length - open >= limit) return { matches, circuits };
    want += limit - (matches.length - open);
  }
}

/** The catalog view a tool gets in its context (see CatalogView): GET /tools?q= for the request's key. */
export function catalogView(ctx: ExecContext, deps: PipelineDeps): CatalogView {
  return {
    format: ctx.format ?? 'openai',
    hasSearchWords,
    async search(query, { limit, format, exclude }) {
      // One more than asked for, in case `exclude` is among them.
      const { matches, circuits } = await searchAllowed(query, limit + 1, ctx.caller, deps, ctx.log);
      const found = matches.filter((e, i) => circuits[i]!.state !== 'open' && e.name !== exclude).slice(0, limit);
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
}
