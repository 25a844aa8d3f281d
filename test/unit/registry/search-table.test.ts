/** Contract 2, large catalogs: `?q=` returns the most relevant tools, best first — pinned by a table of queries. */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { createRegistry, registryDefaults } from '../../../src/registry/registry.js';
import { searchTools } from '../../../src/registry/search.js';
import type { Tool } from '../../../src/tools/tool.js';
import { LARGE_CATALOG_QUERIES, type QueryRow } from '../../fixtures/catalog/queries.js';
import { largeCatalog } from '../../helpers/catalog.js';

/**
 * The table against a catalog given as a loader, so the same test can run
 * over another fixture (the OpenAPI import's test/fixtures/openapi/large.*
 * once both are merged) with a table of its own.
 */
function describeQueryTable(name: string, load: () => Tool[], rows: readonly QueryRow[]): void {
  describe(`tool search over ${name}`, () => {
    const tools = load();
    const registry = createRegistry(tools, registryDefaults(configFrom({})));

    it(`is a large catalog (${tools.length} tools)`, () => {
      expect(tools.length).toBeGreaterThanOrEqual(500);
    });

    it.each(rows)('%j finds %s within the first %i', (query, expected, within) => {
      const found = searchTools(registry.list(), query, 10).map((e) => e.name);
      if (expected === null) {
        expect(found).toEqual([]);
        return;
      }
      expect(found.slice(0, within), `top 10: ${found.join(', ')}`).toContain(expected);
    });
  });
}

describeQueryTable('the GitHub + server-everything + built-ins catalog', () => largeCatalog(tmpdir()), LARGE_CATALOG_QUERIES);
