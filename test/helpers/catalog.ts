import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configFrom } from '../../src/config/load.js';
import { createPolicy } from '../../src/policy/index.js';
import { createBuiltinTools } from '../../src/tools/builtin/index.js';
import { createHttpDispatchers, type HttpDispatchers } from '../../src/tools/http/index.js';
import { loadOpenApiSources } from '../../src/tools/openapi/index.js';
import type { Tool } from '../../src/tools/tool.js';
import { createEnvCredentials } from '../../src/tools/credentials.js';

const FIXTURE = new URL('../fixtures/catalog/catalog.json', import.meta.url);

/** A catalog tool that only answers: its schema is what the tests are about. */
function asTool(spec: { name: string; description: string; parameters: Record<string, unknown> }): Tool {
  return { ...spec, concurrencySafe: true, run: async () => ({ text: `${spec.name} ran` }) };
}

/** The tools of test/fixtures/catalog: 491 GitHub REST operations and the 13 tools of server-everything (see its extract.ts). */
export function fixtureTools(): Tool[] {
  const { tools } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { tools: Array<Parameters<typeof asTool>[0]> };
  return tools.map(asTool);
}

/** The realistic large catalog: {@link fixtureTools} and the workspace built-ins, 510 tools. */
export function largeCatalog(): Tool[] {
  return [...fixtureTools(), ...createBuiltinTools(createPolicy([]))];
}

/** The large OpenAPI fixture (GitHub Enterprise Server 3.0), as an `openapi_sources` entry imports it: 672 `gh_` tools. */
export const LARGE_OPENAPI_SPEC = fileURLToPath(new URL('../fixtures/openapi/large.json', import.meta.url));

/**
 * {@link LARGE_OPENAPI_SPEC} through the real importer (config schema, then
 * src/tools/openapi), as start-up reads it; `source` adds to or overrides
 * the entry (a loopback base_url for calls). The dispatchers only matter to
 * a test that calls the tools.
 */
export async function largeOpenApiCatalog(
  source: Record<string, unknown> = {},
  dispatchers: HttpDispatchers = createHttpDispatchers(),
): Promise<Tool[]> {
  const config = configFrom({ openapi_sources: [largeOpenApiSource(source)] });
  const { tools, problems } = await loadOpenApiSources(config.openapi_sources, {
    dispatchers,
    credentials: createEnvCredentials({}),
    baseDir: process.cwd(),
  });
  if (problems.length > 0) throw new Error(`the large OpenAPI fixture did not import: ${problems.join('; ')}`);
  return tools;
}

/** The `openapi_sources` entry of {@link largeOpenApiCatalog}. */
export function largeOpenApiSource(source: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'github', spec: LARGE_OPENAPI_SPEC, prefix: 'gh_', base_url: 'https://ghe.example.com/api/v3', ...source };
}
