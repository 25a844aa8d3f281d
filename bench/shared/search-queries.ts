import { readFileSync } from 'node:fs';
import { LARGE_CATALOG_QUERIES } from '../../test/fixtures/catalog/queries.js';

/** A tool of the realistic catalog (test/fixtures/catalog/catalog.json). */
export interface CatalogTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export function catalogTools(): CatalogTool[] {
  return (
    JSON.parse(readFileSync(new URL('../../test/fixtures/catalog/catalog.json', import.meta.url), 'utf8')) as { tools: CatalogTool[] }
  ).tools;
}

/**
 * The search queries of the benches: the pinned table's, each also with a
 * trailing word, 224 in all — more distinct ones than GET /tools keeps
 * rendered (128), so a run that cycles through them is never served from
 * that cache.
 */
export const BENCH_QUERIES: readonly string[] = ['', ' please', ' now', ' api', ' quickly', ' for me', ' today'].flatMap((tail) =>
  LARGE_CATALOG_QUERIES.map(([q]) => `${q}${tail}`),
);
