/** Large catalogs: `?q=` returns the most relevant tools, best first — pinned by a table of queries. */
import { beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { createRegistry, registryDefaults } from '../../../src/registry/registry.js';
import { searchTools } from '../../../src/registry/search.js';
import type { Tool } from '../../../src/tools/tool.js';
import { LARGE_CATALOG_QUERIES, type QueryRow } from '../../fixtures/catalog/queries.js';
import { LARGE_OPENAPI_QUERIES } from '../../fixtures/openapi/queries.js';
import { largeCatalog, largeOpenApiCatalog } from '../../helpers/catalog.js';

/**
 * The table against a catalog given as a loader, so the same test runs over
 * each large fixture with a table of its own. The loader may be async: the
 * OpenAPI fixture is read through the importer, as start-up reads it.
 */
function describeQueryTable(name: string, load: () => Tool[] | Promise<Tool[]>, rows: readonly QueryRow[]): void {
  describe(`tool search over ${name}`, () => {
    let registry: ReturnType<typeof createRegistry>;
    beforeAll(async () => {
      registry = createRegistry(await load(), registryDefaults(configFrom({})));
    });

    it('is a large catalog (500 tools or more)', () => {
      expect(registry.list().length).toBeGreaterThanOrEqual(500);
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

describeQueryTable('the GitHub + server-everything + built-ins catalog', () => largeCatalog(), LARGE_CATALOG_QUERIES);
describeQueryTable(
  'the large OpenAPI fixture (GitHub Enterprise Server 3.0, 672 tools)',
  () => largeOpenApiCatalog(),
  LARGE_OPENAPI_QUERIES,
);
