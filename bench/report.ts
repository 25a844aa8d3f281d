import type { TargetStats } from './child.js';
import type { Sample } from './load.js';
import { TARGET_LABELS, type TargetName } from './targets.js';

/** The median of each figure over the rounds, with the rounds kept for the JSON. */
export interface Summary extends Sample {
  rounds: Sample[];
}

export interface Cell {
  connections: number;
  targets: Partial<Record<TargetName, Summary>>;
}

export interface ScenarioReport {
  id: string;
  title: string;
  callsPerRequest: number;
  cells: Cell[];
  /** Redis commands per request of the Redis-store gateway: those it sent (each a round trip), by name, and those its scripts ran. */
  redisCommands?: { perRequest: number; byCommand: Record<string, number>; inScriptsPerRequest: number; sampled: number };
}

export interface Verdict {
  goal: string;
  measured: string;
  /** undefined: the run did not measure it (a target or the connection count was left out). */
  met?: boolean;
}

export interface BenchReport {
  date: string;
  machine: { cpus: number; cpu: string; node: string; os: string; memoryGiB: number };
  settings: { durationS: number; warmupS: number; rounds: number; connections: number[]; logLevel: string; targets: TargetName[] };
  scenarios: ScenarioReport[];
  /** Tool calls each target ran and how many failed, over the whole run: failures make its figures meaningless. */
  targetStats: Partial<Record<TargetName, TargetStats>>;
  verdicts: Verdict[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(rounds: Sample[]): Summary {
  const of = (key: keyof Sample) => median(rounds.map((r) => r[key]));
  return {
    requestsPerS: of('requestsPerS'),
    callsPerS: of('callsPerS'),
    p50Ms: of('p50Ms'),
    p99Ms: of('p99Ms'),
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    rounds,
  };
}

const RATIO_CONNECTIONS = 16;

/** The issue's goals, checked at 16 connections (or the run's highest count below it when 16 was not run). */
export function verdicts(scenarios: readonly ScenarioReport[]): Verdict[] {
  const cellOf = (id: string): Cell | undefined => {
    const cells = scenarios.find((s) => s.id === id)?.cells ?? [];
    return cells.find((c) => c.connections === RATIO_CONNECTIONS) ?? cells.filter((c) => c.connections < RATIO_CONNECTIONS).at(-1) ?? cells[0];
  };
  const noop = cellOf('noop');
  const ten = cellOf('noop10');
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a / b);
  const check = (goal: string, value: number | undefined, threshold: number, describe: (v: number) => string, atMost = false): Verdict =>
    value === undefined || Number.isNaN(value)
      ? { goal, measured: 'not measured' }
      : { goal, measured: describe(value), met: atMost ? value <= threshold : value >= threshold };
  const at = (cell: Cell | undefined) => (cell ? ` at ${cell.connections} conn.` : '');
  // Three decimals below 1, so a ratio just under a goal of 0.5 never prints as 0.50.
  const x = (v: number) => `${v.toFixed(v < 1 ? 3 : 2)} ×`;
  return [
    check('One no-op call, memory store: ≥ 0.5 × the floor’s requests/s', ratio(noop?.targets.memory?.requestsPerS, noop?.targets.floor?.requestsPerS), 0.5, (v) => x(v) + at(noop)),
    check('One no-op call, Redis store: ≥ 0.35 × the floor’s requests/s', ratio(noop?.targets.redis?.requestsPerS, noop?.targets.floor?.requestsPerS), 0.35, (v) => x(v) + at(noop)),
    check('Ten calls per request: ≥ 5 × the tool calls/s of one-call requests (memory)', ratio(ten?.targets.memory?.callsPerS, noop?.targets.memory?.callsPerS), 5, (v) => x(v) + at(ten)),
    check('Ten calls per request: ≥ 5 × the tool calls/s of one-call requests (Redis)', ratio(ten?.targets.redis?.callsPerS, noop?.targets.redis?.callsPerS), 5, (v) => x(v) + at(ten)),
    check('One call: ≥ 4 × the MCP server’s tool calls/s (memory)', ratio(noop?.targets.memory?.callsPerS, noop?.targets.mcp?.callsPerS), 4, (v) => x(v) + at(noop)),
    check('Ten calls: ≥ 20 × the MCP server’s tool calls/s (memory)', ratio(ten?.targets.memory?.callsPerS, ten?.targets.mcp?.callsPerS), 20, (v) => x(v) + at(ten)),
    check('p99 within 2 × the floor’s p99 (memory, one no-op call)', ratio(noop?.targets.memory?.p99Ms, noop?.targets.floor?.p99Ms), 2, (v) => x(v) + at(noop), true),
  ];
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isNaN(n) ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(1));
const times = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(2));

function table(scenario: ScenarioReport): string[] {
  const lines = [
    `### ${scenario.title}`,
    '',
    '| conn. | target | req/s | tool calls/s | p50 ms | p99 ms | × floor req/s | × MCP calls/s | Redis round trips/req |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const cell of scenario.cells) {
    const floor = cell.targets.floor;
    const mcp = cell.targets.mcp;
    for (const [name, s] of Object.entries(cell.targets) as [TargetName, Summary][]) {
      const flags = s.non2xx + s.errors > 0 ? ` ⚠ ${s.non2xx} non-2xx, ${s.errors} errors` : '';
      const redis = name === 'redis' && scenario.redisCommands ? scenario.redisCommands.perRequest.toFixed(1) : '';
      lines.push(
        `| ${cell.connections} | ${TARGET_LABELS[name]}${flags} | ${int(s.requestsPerS)} | ${int(s.callsPerS)} | ${ms(s.p50Ms)} | ${ms(s.p99Ms)} | ` +
          `${times(floor && s.requestsPerS / floor.requestsPerS)} | ${times(mcp && s.callsPerS / mcp.callsPerS)} | ${redis} |`,
      );
    }
  }
  if (scenario.redisCommands) {
    const by = Object.entries(scenario.redisCommands.byCommand)
      .map(([command, count]) => `${command} ${(count / scenario.redisCommands!.sampled).toFixed(1)}`)
      .join(', ');
    const { sampled, inScriptsPerRequest } = scenario.redisCommands;
    lines.push('', `Redis round trips per request (${sampled} requests sampled): ${by || 'none'}; the scripts run ${inScriptsPerRequest.toFixed(1)} commands inside Redis.`);
  }
  return lines;
}

export function markdown(report: BenchReport): string {
  const { machine, settings } = report;
  const lines = [
    `Run of ${report.date}: ${machine.cpus} × ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}.`,
    `${settings.durationS} s per run, median of ${settings.rounds} round(s) with the targets alternating, ${settings.warmupS} s warm-up; ` +
      `toolgate logs at "${settings.logLevel}". Load generator and servers share the machine's cores.`,
    '',
  ];
  for (const scenario of report.scenarios) lines.push(...table(scenario), '');
  lines.push('### Goals', '', '| goal | measured | verdict |', '|---|---|---|');
  for (const v of report.verdicts) lines.push(`| ${v.goal} | ${v.measured} | ${v.met === undefined ? '–' : v.met ? 'met' : 'not met'} |`);
  const failed = Object.entries(report.targetStats).filter(([, s]) => s.toolErrors > 0);
  lines.push('', failed.length === 0 ? 'No tool call failed on any target.' : `⚠ Failed tool calls: ${failed.map(([n, s]) => `${n} ${s.toolErrors}/${s.toolCalls}`).join(', ')}.`);
  return lines.join('\n');
}
