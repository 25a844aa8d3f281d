import { sha256Hex } from '../protocol/canonical.js';
import type { RegisteredTool } from '../registry/registry.js';

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

/** A listing's ETag: a hash of what it lists, so the same tools rendered the same way revalidate. */
export function etagOf(list: unknown[]): string {
  return `"${sha256Hex(JSON.stringify(list)).slice(0, 32)}"`;
}
