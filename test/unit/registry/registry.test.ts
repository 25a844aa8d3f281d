import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { createRegistry, registryDefaults } from '../../../src/registry/registry.js';
import type { Tool } from '../../../src/tools/tool.js';

const tool = (name: string, parameters: Record<string, unknown> = { type: 'object' }): Tool => ({
  name,
  description: name,
  parameters,
  concurrencySafe: false,
  run: async () => ({ text: name }),
});
const names = (registry: ReturnType<typeof createRegistry>) => registry.list().map((e) => e.name);

/** An upstream MCP server's tools are swapped in and out of the catalog while it serves. */
describe('ToolRegistry.setSource', () => {
  it("replaces only that source's tools, keeps the list sorted, and leaves the fixed tools alone", () => {
    const registry = createRegistry([tool('Read'), tool('Write')], registryDefaults(configFrom({})));
    registry.setSource('a', [tool('a_one'), tool('a_two')]);
    registry.setSource('b', [tool('B_x')]);
    expect(names(registry)).toEqual(['B_x', 'Read', 'Write', 'a_one', 'a_two']);
    registry.setSource('a', [tool('a_three')]);
    expect(names(registry)).toEqual(['B_x', 'Read', 'Write', 'a_three']);
    expect(registry.get('a_one')).toBeUndefined();
    expect(registry.get('a_three')!.tool.name).toBe('a_three');
  });

  it("a source's tool whose pattern RE2 cannot run is served, that pattern unchecked and reported; a fixed tool's stops the registry", () => {
    const guarded = tool('guarded', { type: 'object', properties: { q: { type: 'string', pattern: '^(?!admin)' } } });
    const registry = createRegistry([], registryDefaults(configFrom({})));
    const report = registry.setSource('up', [guarded]);
    expect(report).toEqual({
      refused: [],
      invalid: [],
      unchecked: ['guarded: "^(?!admin)" not checked by the gateway (RE2 has no look-around or back-reference); the upstream checks them'],
    });
    expect(registry.get('guarded')!.validate({ q: 'admin' })).toBe(true);
    expect(() => createRegistry([guarded], registryDefaults(configFrom({})))).toThrow(
      /^tool guarded: parameters are not a valid JSON Schema: pattern "\^\(\?!admin\)" is not run/,
    );
  });

  it('compiled (the schemas were compiled where they were read): each validator compiles on its first call and validates the same', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
    const many = Array.from({ length: 300 }, (_, i) => tool(`t${i}`, { ...schema, properties: { n: { type: 'integer', maximum: i } } }));
    const eager = createRegistry([], registryDefaults(configFrom({})));
    const lazy = createRegistry([], registryDefaults(configFrom({})));
    let started = performance.now();
    eager.setSource('e', many);
    const eagerMs = performance.now() - started;
    started = performance.now();
    lazy.setSource('l', many, true);
    expect(performance.now() - started).toBeLessThan(eagerMs / 3);
    const validate = lazy.get('t5')!.validate;
    expect(validate({ n: 5 })).toBe(true);
    expect(validate({ n: 6 })).toBe(false);
    expect(validate.errors).toEqual(eager.get('t5')!.validate({ n: 6 }) ? null : eager.get('t5')!.validate.errors);
  });

  it('refuses a name another tool holds or no provider accepts, and reports a schema ajv rejects; serves the rest', () => {
    const registry = createRegistry([tool('Read')], registryDefaults(configFrom({})));
    registry.setSource('b', [tool('shared')]);
    const report = registry.setSource('a', [
      tool('Read'),
      tool('shared'),
      tool('bad name'),
      tool('x'.repeat(65)),
      tool('broken', { type: 'object', properties: { p: { type: 'nope' } } }),
      tool('fine'),
    ]);
    expect(report.refused).toEqual([
      expect.stringMatching(/^Read: another tool has this name/),
      expect.stringMatching(/^shared: another tool has this name/),
      expect.stringMatching(/^"bad name": not a name every provider accepts/),
      expect.stringMatching(/^"x{65}": not a name every provider accepts/),
    ]);
    expect(report.invalid).toEqual([expect.stringMatching(/^broken: inputSchema is not a valid JSON Schema/)]);
    expect(names(registry)).toEqual(['Read', 'fine', 'shared']);
    expect(registry.get('shared')).toBeDefined();
  });

  it('compiles a validator again only when the schema changed', () => {
    const registry = createRegistry([], registryDefaults(configFrom({})));
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    registry.setSource('a', [tool('t', schema)]);
    const first = registry.get('t')!.validate;
    registry.setSource('a', [tool('t', structuredClone(schema))]);
    expect(registry.get('t')!.validate).toBe(first);
    registry.setSource('a', [tool('t', { type: 'object', properties: { n: { type: 'string' } } })]);
    expect(registry.get('t')!.validate).not.toBe(first);
    expect(registry.get('t')!.validate({ n: 'text' })).toBe(true);
  });
});
