import { readFileSync } from 'node:fs';
import { createBuiltinTools } from '../../src/tools/builtin/index.js';
import type { Tool } from '../../src/tools/tool.js';

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

/** The realistic large catalog: {@link fixtureTools} and the workspace built-ins on `workspace`, 510 tools. */
export function largeCatalog(workspace: string): Tool[] {
  return [...fixtureTools(), ...createBuiltinTools(workspace)];
}
