import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LARGE_CATALOG_QUERIES } from '../../fixtures/catalog/queries.js';
import { LARGE_OPENAPI_QUERIES } from '../../fixtures/openapi/queries.js';

const DOC = readFileSync(new URL('../../../docs/catalogs.md', import.meta.url), 'utf8');

/** The table rows of the docs between two headings, read back as query rows. */
function tableBetween(start: string, end: string) {
  const from = DOC.indexOf(start);
  const section = DOC.slice(from, DOC.indexOf(end, from));
  return [...section.matchAll(/^\| `([^`]+)` \| (?:`([^`]+)`|nothing) \| (\d+|–) \|$/gm)].map(
    ([, query, expected, within]) => [query, expected ?? null, within === '–' ? 0 : Number(within)] as const,
  );
}

/** docs/catalogs.md prints the query tables the search test pins: they must not drift apart. */
describe('docs/catalogs.md', () => {
  it('its query table is the pinned one, row for row', () => {
    expect(tableBetween('### The pinned query table\n', '### The pinned query table over an OpenAPI import')).toEqual(
      LARGE_CATALOG_QUERIES,
    );
  });

  it('its query table over the OpenAPI import is the pinned one, row for row', () => {
    expect(tableBetween('### The pinned query table over an OpenAPI import', '## The tool_search built-in')).toEqual(LARGE_OPENAPI_QUERIES);
  });
});
