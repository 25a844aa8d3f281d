import type { Measure } from './measure.js';
import type { ManyToolsReport } from './report.js';
import { plan } from './requests.js';
import { SCENARIOS } from './scenarios.js';
import type { Target, TargetName } from './targets.js';

/** The many-tools scenario: the small registry against the realistic catalog of 500 HTTP tools. */
export const MANY_TOOLS = {
  id: 'many-tools',
  title: 'Many tools: GET /tools and one Noop call with 500 HTTP tools (the realistic catalog) in the registry',
  httpTools: 500,
};

/**
 * The small-registry gateway against the one with 500 HTTP tools: one Noop
 * call per request, then GET /tools revalidating with the current ETag (every
 * answer must be a 304).
 */
export async function manyTools(small: Target, many: Target, measure: Measure, log: (line: string) => void): Promise<ManyToolsReport> {
  const etags = new Map<TargetName, string>();
  for (const target of [small, many]) {
    const listed = await fetch(`${target.url}/tools`);
    const { tools } = (await listed.json()) as { tools: unknown[] };
    const etag = listed.headers.get('etag');
    const again = etag ? await fetch(`${target.url}/tools`, { headers: { 'if-none-match': etag } }) : undefined;
    if (!etag || again?.status !== 304)
      throw new Error(`${target.name}: GET /tools with its own ETag answered ${again?.status ?? 'no ETag'}, not 304`);
    log(`${target.name}: GET /tools lists ${tools.length} tools`);
    etags.set(target.name, etag);
  }
  const both = [small, many];
  const noopScenario = SCENARIOS.find((s) => s.id === 'noop')!;
  // The Noop calls first: each 304 of the large catalog leaves hundreds of kilobytes of garbage, whose collection would slow the runs after
  // it.
  const noop = await measure(both, `${MANY_TOOLS.id} noop`, (target, connections, durationS) =>
    plan(target, noopScenario, connections, durationS),
  );
  const revalidate = await measure(both, `${MANY_TOOLS.id} GET /tools`, (target, connections, durationS) => ({
    url: target.url,
    connections,
    durationS,
    cycle: [{ method: 'GET', path: '/tools', headers: { 'if-none-match': etags.get(target.name)! } }],
    callsPerRequest: 0,
    status: 304,
    usage: target.usage,
  }));
  return {
    id: MANY_TOOLS.id,
    title: MANY_TOOLS.title,
    httpTools: MANY_TOOLS.httpTools,
    cells: revalidate.map((cell, i) => ({ connections: cell.connections, revalidate: cell.targets, noop: noop[i]!.targets })),
  };
}
