import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LARGE_CATALOG_QUERIES } from '../../fixtures/catalog/queries.js';

const DOC = readFileSync(new URL('../../../docs/catalogs.md', import.meta.url), 'utf8');

/** docs/catalogs.md prints the query table the search test pins: the two must not drift apart. */
describe('docs/catalogs.md', () => {
  it('its query table is the pinned one, row for row', () => {
    const section = DOC.slice(DOC.indexOf('### The pinned query table'), DOC.indexOf('## The tool_search built-in'));
    const rows = [...section.matchAll(/^\| `([^`]+)` \| (?:`([^`]+)`|nothing) \| (\d+|–) \|$/gm)].map(
      ([, query, expected, within]) => [query, expected ?? null, within === '–' ? 0 : Number(within)] as const,
    );
    expect(rows).toEqual(LARGE_CATALOG_QUERIES);
  });
});
