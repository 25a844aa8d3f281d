import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../../src/catalog/catalog.js';
import { configFrom } from '../../../src/config/load.js';
import { createRegistry, registryDefaults, type RegisteredTool } from '../../../src/registry/registry.js';
import type { CircuitStatus } from '../../../src/state/state-store.js';
import type { Tool } from '../../../src/tools/tool.js';

const tool = (name: string, description = name): Tool => ({
  name,
  description,
  parameters: { type: 'object' },
  concurrencySafe: false,
  run: async () => ({ text: name }),
});

/** A catalog over Read, Write and Grep whose breakers are open for the names in `open`. */
function catalogWith(open: string[]) {
  const registry = createRegistry(
    [tool('Read', 'Read a file'), tool('Write', 'Write a file'), tool('Grep', 'Search file contents')],
    registryDefaults(configFrom({})),
  );
  const reads: string[][] = [];
  const circuits = async (entries: readonly RegisteredTool[]): Promise<CircuitStatus[]> => {
    reads.push(entries.map((e) => e.name));
    return entries.map((e) => ({ scope: e.name, state: open.includes(e.name) ? 'open' : 'closed', failures: 0, reopens_at: null }));
  };
  return { catalog: createCatalog(registry, circuits), reads };
}

const everyTool = { keyId: 'k', allows: () => true };

describe('the catalog: a tool whose breaker is open is hidden, a tool the key may not use is never seen', () => {
  it("tools/list's view leaves out open breakers and tools the key does not allow", async () => {
    const { catalog } = catalogWith(['Write']);
    const names = (await catalog.visible({ keyId: 'k', allows: (name) => name !== 'Grep' })).map((e) => e.name);
    expect(names).toEqual(['Read']);
  });

  it('GET /tools lists only what is not hidden, and with include_unavailable every allowed tool marked', async () => {
    const { catalog } = catalogWith(['Write']);
    const plain = await catalog.list(everyTool, { format: 'anthropic' });
    expect((plain.list as { name: string }[]).map((t) => t.name)).toEqual(['Grep', 'Read']);
    const all = await catalog.list(everyTool, { format: 'anthropic', include_unavailable: true });
    const marked = all.list as { name: string; 'x-toolgate': { available: boolean } }[];
    expect(marked.map((t) => [t.name, t['x-toolgate'].available])).toEqual([
      ['Grep', true],
      ['Read', true],
      ['Write', false],
    ]);
    expect(all.etag).not.toBe(plain.etag);
  });

  it('GET /tools/:name describes an allowed tool, open or not, and nothing else', async () => {
    const { catalog } = catalogWith(['Write']);
    const write = await catalog.describe(everyTool, 'Write');
    expect(write).toMatchObject({ name: 'Write', 'x-toolgate': { available: false, circuit: { state: 'open' } } });
    expect(await catalog.describe({ keyId: 'k', allows: (name) => name !== 'Write' }, 'Write')).toBeUndefined();
    expect(await catalog.describe(everyTool, 'Nope')).toBeUndefined();
  });

  it("tool_search's view skips open breakers and the excluded name, reading only the breakers of the tools ranked", async () => {
    const { catalog, reads } = catalogWith(['Read']);
    const view = catalog.view(everyTool, 'openai');
    const found = await view.search('file', { limit: 1, format: 'openai', exclude: 'Grep' });
    expect(found.names).toEqual(['Write']);
    expect(reads.every((names) => names.length <= 3)).toBe(true);
  });
});
