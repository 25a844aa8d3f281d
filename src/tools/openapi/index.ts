import type { OpenApiSourceConfig } from '../../config/schema.js';
import type { Tool } from '../tool.js';
import { loadOpenApiSource, type OpenApiDeps } from './source.js';
export { toolNameOf } from './openapi-tool.js';
export { headerProblems, loadOpenApiSource, type OperationVerdict } from './source.js';
export { startOpenApiSources, type OpenApiLoads } from './start.js';

/** Every source's tools, the operations left out, and the problems that stop start-up. */
export interface OpenApiTools {
  tools: Tool[];
  skipped: string[];
  problems: string[];
}

/** Read every `openapi_sources` entry at once (their fetches run in parallel). */
export async function loadOpenApiSources(sources: readonly OpenApiSourceConfig[], deps: OpenApiDeps): Promise<OpenApiTools> {
  const outcomes = await Promise.all(sources.map((source) => loadOpenApiSource(source, deps)));
  const problems = outcomes.flatMap((o) => o.problems);
  const owner = new Map<string, string>();
  outcomes.forEach((outcome, i) => {
    for (const tool of outcome.tools) {
      const other = owner.get(tool.name);
      if (other !== undefined) problems.push(`openapi_sources.${sources[i]!.name}: the tool "${tool.name}" is also one of ${other}'s; set a prefix for one of them`);
      owner.set(tool.name, sources[i]!.name);
    }
  });
  return {
    tools: outcomes.flatMap((o) => o.tools),
    skipped: outcomes.flatMap((o, i) => o.skipped.map((line) => `openapi_sources.${sources[i]!.name}: ${line}`)),
    problems,
  };
}
