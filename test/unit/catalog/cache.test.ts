import { describe, expect, it } from 'vitest';
import { keptFor } from '../../../src/catalog/cache.js';
import type { RegisteredTool } from '../../../src/registry/registry.js';

/** GET /tools caches what it rendered per registry version; arbitrary queries must not grow that cache without bound. */
describe('keptFor', () => {
  it('keeps at most `kept` entries per registry version, the oldest going first, and makes each once', () => {
    const cache = new WeakMap<readonly RegisteredTool[], Map<string, number>>();
    const registry: RegisteredTool[] = [];
    let made = 0;
    const get = (key: string) => keptFor(cache, registry, key, 3, () => ++made);
    expect([get('a'), get('b'), get('c'), get('a')]).toEqual([1, 2, 3, 1]);
    get('d');
    expect([...cache.get(registry)!.keys()]).toEqual(['b', 'c', 'd']);
    expect(get('a')).toBe(5);
    expect(cache.get(registry)!.size).toBe(3);
  });

  it('a new registry version starts empty', () => {
    const cache = new WeakMap<readonly RegisteredTool[], Map<string, string>>();
    keptFor(cache, [], 'a', 3, () => 'old');
    expect(keptFor(cache, [], 'a', 3, () => 'new')).toBe('new');
  });
});
