import type autocannon from 'autocannon';
import type { LoadPlan } from './load.js';
import { executeBodies, executeBody, mcpBody, type Scenario } from './scenarios.js';
import type { Target, TargetName } from './targets.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const MCP_HEADERS = { ...JSON_HEADERS, accept: 'application/json, text/event-stream' };

/** Request numbers per target: they make call ids unique and pick the Edit slot (see scenarios.ts). */
const counters = new Map<TargetName, number>();
const next = (target: TargetName) => {
  const n = counters.get(target) ?? 0;
  counters.set(target, n + 1);
  return n;
};

/** The HTTP requests of one scenario request, for autocannon; each request's body is built as it goes. */
function cycle(target: Target, scenario: Scenario): autocannon.Request[] {
  if (target.protocol === 'execute') {
    const body = executeBodies(scenario, target.name);
    return [
      {
        method: 'POST',
        path: '/execute',
        headers: { ...JSON_HEADERS, ...target.headers },
        setupRequest: (req) => ({ ...req, body: body(next(target.name)) }),
      },
    ];
  }
  const base = { method: 'POST' as const, path: '/mcp', headers: MCP_HEADERS };
  return scenario.calls(0, target.name).map((call, i) => {
    const varies = mcpBody(call, i + 1) !== mcpBody(scenario.calls(1, target.name)[i]!, i + 1);
    if (!varies) return { ...base, body: mcpBody(call, i + 1) };
    return { ...base, setupRequest: (req) => ({ ...req, body: mcpBody(scenario.calls(next(target.name), target.name)[i]!, i + 1) }) };
  });
}

/** A timed run of `scenario` against `target`, with the target's CPU time read around it. */
export function plan(target: Target, scenario: Scenario, connections: number, durationS: number): LoadPlan {
  return {
    url: target.url,
    connections,
    durationS,
    cycle: cycle(target, scenario),
    callsPerRequest: scenario.callsPerRequest,
    usage: target.usage,
  };
}

/** Send one scenario request outside the load run, fail loudly unless every call succeeded, and return the calls' texts. */
export async function sendChecked(target: Target, scenario: Scenario): Promise<string[]> {
  const n = next(target.name);
  if (target.protocol === 'execute') {
    const response = await fetch(`${target.url}/execute`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...target.headers },
      body: executeBody(scenario, n, target.name),
    });
    const body = (await response.json()) as { results?: { status: string; text: string }[] };
    const failed = body.results?.find((r) => r.status !== 'success');
    if (response.status !== 200 || body.results?.length !== scenario.callsPerRequest || failed) {
      throw new Error(`${target.name} ${scenario.id}: HTTP ${response.status} ${JSON.stringify(failed ?? body).slice(0, 300)}`);
    }
    return body.results.map((r) => r.text);
  }
  const texts: string[] = [];
  for (const [i, call] of scenario.calls(n, target.name).entries()) {
    const response = await fetch(`${target.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: mcpBody(call, i + 1) });
    const body = (await response.json()) as { result?: { isError?: boolean; content?: { text?: string }[] } };
    if (response.status !== 200 || !body.result || body.result.isError) {
      throw new Error(`${target.name} ${scenario.id}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    texts.push(body.result.content?.[0]?.text ?? '');
  }
  return texts;
}

/** Every target must answer a scenario of Reads alike, or the floor would not be doing the work toolgate's Read does. */
export function checkSameReads(scenario: Scenario, texts: ReadonlyMap<TargetName, string[]>): void {
  if (!scenario.calls(0, 'check').every((call) => call.name === 'Read')) return;
  const [[first, expected] = ['', []], ...others] = [...texts];
  for (const [name, got] of others) {
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      throw new Error(
        `${scenario.id}: ${name} answers ${JSON.stringify(got[0]?.slice(0, 120))}, ${first} ${JSON.stringify(expected[0]?.slice(0, 120))}`,
      );
    }
  }
}
