import type { Measure } from './measure.js';
import type { Summary } from './summary.js';
import { BENCH_QUERIES } from './search-queries.js';
import type { Target, TargetName } from './targets.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The search scenario: the small-registry gateway (`memory`) against the one
 * with the realistic 500-tool catalog (`many-tools`), each sent
 * `GET /tools?q=` and POST /execute of one tool_search call, every request
 * with the next of 224 distinct queries, so none is answered from the
 * rendered-listing cache.
 */
export interface SearchReport {
  id: string;
  title: string;
  queries: number;
  cells: { connections: number; search: Partial<Record<TargetName, Summary>>; toolSearch: Partial<Record<TargetName, Summary>> }[];
}

export const SEARCH_SCENARIO = {
  id: 'search',
  title: 'Tool search: GET /tools?q= and one tool_search call, 224 distinct queries in turn, 500 HTTP tools in the registry',
};

const toolSearchBody = (query: string) =>
  JSON.stringify({
    tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'tool_search', arguments: JSON.stringify({ query }) } }],
  });

/** Fails loudly unless the large catalog answers the table's first query with its expected tool, by both paths. */
async function check(many: Target): Promise<void> {
  const listed = (await (await fetch(`${many.url}/tools?q=create+an+issue&limit=1`)).json()) as {
    tools: Array<{ function: { name: string } }>;
  };
  const executed = (await (
    await fetch(`${many.url}/execute`, { method: 'POST', headers: JSON_HEADERS, body: toolSearchBody('create an issue') })
  ).json()) as {
    results: Array<{ status: string; data?: { tools: Array<{ function: { name: string } }> } }>;
  };
  const names = [listed.tools[0]?.function.name, executed.results[0]?.data?.tools[0]?.function.name];
  if (names.some((n) => n !== 'issues_create'))
    throw new Error(`${many.name}: "create an issue" found ${JSON.stringify(names)}, not issues_create`);
}

export async function searchLoad(small: Target, many: Target, measure: Measure): Promise<SearchReport> {
  await check(many);
  const turns = new Map<TargetName, number>();
  const query = (target: Target) => {
    const n = turns.get(target.name) ?? 0;
    turns.set(target.name, n + 1);
    return BENCH_QUERIES[n % BENCH_QUERIES.length]!;
  };
  const both = [small, many];
  const search = await measure(both, `${SEARCH_SCENARIO.id} GET /tools?q=`, (target, connections, durationS) => ({
    url: target.url,
    connections,
    durationS,
    cycle: [{ method: 'GET', path: '/tools', setupRequest: (req) => ({ ...req, path: `/tools?q=${encodeURIComponent(query(target))}` }) }],
    callsPerRequest: 0,
    status: 200,
    usage: target.usage,
  }));
  const toolSearch = await measure(both, `${SEARCH_SCENARIO.id} tool_search`, (target, connections, durationS) => ({
    url: target.url,
    connections,
    durationS,
    cycle: [
      { method: 'POST', path: '/execute', headers: JSON_HEADERS, setupRequest: (req) => ({ ...req, body: toolSearchBody(query(target)) }) },
    ],
    callsPerRequest: 1,
    status: 200,
    usage: target.usage,
  }));
  return {
    ...SEARCH_SCENARIO,
    queries: BENCH_QUERIES.length,
    cells: search.map((cell, i) => ({ connections: cell.connections, search: cell.targets, toolSearch: toolSearch[i]!.targets })),
  };
}
