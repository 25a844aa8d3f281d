import type { TargetStats } from '../targets/child.js';
import type { SearchReport } from './search-load.js';
import { busy, type Cell, type Summary } from './summary.js';
import { TARGET_LABELS, type TargetName } from './targets.js';

export interface ScenarioReport {
  id: string;
  title: string;
  callsPerRequest: number;
  cells: Cell[];
  /** Redis commands per request of the Redis-store gateway: those it sent (each a round trip), by name, and those its scripts ran. */
  redisCommands?: { perRequest: number; byCommand: Record<string, number>; inScriptsPerRequest: number; sampled: number };
  /** System calls and thread-pool trips per request of the floor and the memory-store gateway, over `sampled` sequential requests. */
  syscalls?: { sampled: number; targets: Partial<Record<TargetName, SyscallSample>> };
}

/** Per request: every thread's system calls, by name, and the async resources that were thread-pool work, by type. */
export interface SyscallSample {
  perRequest: number;
  byName: Record<string, number>;
  threadPoolPerRequest: number;
  threadPoolByType: Record<string, number>;
}

/**
 * The many-tools scenario: the memory-store gateway with the usual few tools
 * (`memory`) and with 500 HTTP tools more (`many-tools`), each sent GET /tools
 * revalidating the list it has (If-None-Match of the current ETag, answered
 * 304) and POST /execute of one Noop call.
 */
export interface ManyToolsReport {
  id: string;
  title: string;
  httpTools: number;
  cells: { connections: number; revalidate: Partial<Record<TargetName, Summary>>; noop: Partial<Record<TargetName, Summary>> }[];
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
  settings: {
    durationS: number;
    warmupS: number;
    rounds: number;
    connections: number[];
    logLevel: string;
    targets: TargetName[];
    /** The CPUs of the servers and of everything else; absent with --no-pin. */
    pinning?: { server: string; others: string };
  };
  scenarios: ScenarioReport[];
  manyTools?: ManyToolsReport;
  search?: SearchReport;
  /** Why the system calls were not counted, when they were not. */
  syscallsSkipped?: string;
  /** Tool calls each target ran and how many failed, over the whole run (failures make its figures meaningless), and its RSS after it. */
  targetStats: Partial<Record<TargetName, TargetStats>>;
  verdicts: Verdict[];
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isNaN(n) ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(1));
const times = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(2));
const cpu = (s: Summary) => (Number.isNaN(s.cpuUsPerRequest) ? '–' : int(s.cpuUsPerRequest));
const percent = (s: Summary) => (Number.isNaN(s.cpuUsPerRequest) ? '–' : `${Math.round(busy(s) * 100)} %`);
const gc = (s: Summary) => (Number.isNaN(s.gcShare) ? '–' : `${(s.gcShare * 100).toFixed(1)} %, ${s.markCompactsPerS.toFixed(1)}`);

function table(scenario: ScenarioReport): string[] {
  const lines = [
    `### ${scenario.title}`,
    '',
    '| conn. | target | req/s | tool calls/s | p50 ms | p99 ms | CPU µs/req | CPU busy | GC pauses, mark-compacts/s | × floor req/s | × floor CPU/req | × MCP calls/s | Redis round trips/req |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const cell of scenario.cells) {
    const floor = cell.targets.floor;
    const mcp = cell.targets.mcp;
    for (const [name, s] of Object.entries(cell.targets) as [TargetName, Summary][]) {
      const flags = s.non2xx + s.errors > 0 ? ` ⚠ ${s.non2xx} non-2xx, ${s.errors} errors` : '';
      const redis = name === 'redis' && scenario.redisCommands ? scenario.redisCommands.perRequest.toFixed(1) : '';
      lines.push(
        `| ${cell.connections} | ${TARGET_LABELS[name]}${flags} | ${int(s.requestsPerS)} | ${int(s.callsPerS)} | ${ms(s.p50Ms)} | ${ms(s.p99Ms)} | ${cpu(s)} | ${percent(s)} | ${gc(s)} | ` +
          `${times(floor && s.requestsPerS / floor.requestsPerS)} | ${times(floor && s.cpuUsPerRequest / floor.cpuUsPerRequest)} | ${times(mcp && s.callsPerS / mcp.callsPerS)} | ${redis} |`,
      );
    }
  }
  if (scenario.redisCommands) {
    const by = Object.entries(scenario.redisCommands.byCommand)
      .map(([command, count]) => `${command} ${(count / scenario.redisCommands!.sampled).toFixed(1)}`)
      .join(', ');
    const { sampled, inScriptsPerRequest } = scenario.redisCommands;
    lines.push(
      '',
      `Redis round trips per request (${sampled} requests sampled): ${by || 'none'}; the scripts run ${inScriptsPerRequest.toFixed(1)} commands inside Redis.`,
    );
  }
  if (scenario.syscalls) lines.push('', ...syscallTable(scenario.syscalls));
  return lines;
}

/** The system calls shown by name; the table adds the most frequent others. */
const NAMED_SYSCALLS = ['futex', 'readlink', 'write'] as const;
const TOP_OTHERS = 5;

function syscallTable({ sampled, targets }: NonNullable<ScenarioReport['syscalls']>): string[] {
  // Two decimals below 1, so a hop every few requests does not print as 0.0.
  const one = (n: number | undefined) => (n === undefined ? '–' : n.toFixed(n > 0 && n < 1 ? 2 : 1));
  const byCount = (counts: Record<string, number>, skip: readonly string[] = []) =>
    Object.entries(counts)
      .filter(([name]) => !skip.includes(name))
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name} ${one(n)}`);
  const lines = [
    `System calls per request (${sampled} sequential requests, every thread, \`strace -c -f\`) and thread-pool hops per request (async resources of thread-pool work created):`,
    '',
    `| target | syscalls/req | ${NAMED_SYSCALLS.join(' | ')} | most frequent others | thread-pool hops/req | by type |`,
    `|---|---:|${NAMED_SYSCALLS.map(() => '---:|').join('')}---|---:|---|`,
  ];
  for (const [name, s] of Object.entries(targets) as [TargetName, SyscallSample][]) {
    const named = NAMED_SYSCALLS.map((call) => one(s.byName[call] ?? 0)).join(' | ');
    const others = byCount(s.byName, NAMED_SYSCALLS).slice(0, TOP_OTHERS).join(', ');
    lines.push(
      `| ${TARGET_LABELS[name]} | ${one(s.perRequest)} | ${named} | ${others} | ${one(s.threadPoolPerRequest)} | ${byCount(s.threadPoolByType).join(', ') || 'none'} |`,
    );
  }
  const { floor, memory } = targets;
  if (floor && memory) {
    const named = NAMED_SYSCALLS.map((call) => times((memory.byName[call] ?? 0) / (floor.byName[call] ?? 0))).join(' | ');
    lines.push(
      `| toolgate / floor | ${times(memory.perRequest / floor.perRequest)} | ${named} |  | ${times(memory.threadPoolPerRequest / floor.threadPoolPerRequest)} |  |`,
    );
  }
  return lines;
}

type ByTarget = Partial<Record<TargetName, Summary>>;

/** The small registry against the large catalog, request kind by request kind (many-tools and search). */
function catalogTable<K extends string>(
  title: string,
  cells: readonly ({ connections: number } & Record<K, ByTarget>)[],
  requests: readonly (readonly [K, string])[],
): string[] {
  const lines = [
    `### ${title}`,
    '',
    '| conn. | request | target | req/s | p50 ms | p99 ms | CPU µs/req | × small registry req/s |',
    '|---:|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const cell of cells) {
    for (const [kind, label] of requests) {
      const byTarget: ByTarget = cell[kind];
      const small = byTarget.memory;
      for (const [name, s] of Object.entries(byTarget) as [TargetName, Summary][]) {
        const flags = s.non2xx + s.errors > 0 ? ` ⚠ ${s.non2xx} unexpected statuses, ${s.errors} errors` : '';
        lines.push(
          `| ${cell.connections} | ${label} | ${TARGET_LABELS[name]}${flags} | ${int(s.requestsPerS)} | ${ms(s.p50Ms)} | ${ms(s.p99Ms)} | ${cpu(s)} | ${times(small && s.requestsPerS / small.requestsPerS)} |`,
        );
      }
    }
  }
  return lines;
}

const manyToolsTable = (report: ManyToolsReport) =>
  catalogTable(report.title, report.cells, [
    ['noop', 'POST /execute, one Noop'],
    ['revalidate', 'GET /tools, If-None-Match (304)'],
  ]);

/** Each request of the search scenario is one query, so its latency is that of one search. */
const searchTable = (report: SearchReport) =>
  catalogTable(report.title, report.cells, [
    ['search', 'GET /tools?q= (one query)'],
    ['toolSearch', 'POST /execute, one tool_search'],
  ]);

export function markdown(report: BenchReport): string {
  const { machine, settings } = report;
  const lines = [
    `Run of ${report.date}: ${machine.cpus} × ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}.`,
    `${settings.durationS} s per run, median of ${settings.rounds} round(s) with the targets alternating, ${settings.warmupS} s warm-up; ` +
      `toolgate logs at "${settings.logLevel}". ` +
      (settings.pinning
        ? `Pinned: each server on CPU ${settings.pinning.server}, the load generator, redis-server and strace on CPU ${settings.pinning.others}.`
        : "Not pinned (--no-pin): load generator and servers share the machine's cores.") +
      " CPU µs/req: the server process's CPU time (all threads, user and system) over a run, per request sent.",
    '',
  ];
  for (const scenario of report.scenarios) lines.push(...table(scenario), '');
  if (report.manyTools) lines.push(...manyToolsTable(report.manyTools), '');
  if (report.search) lines.push(...searchTable(report.search), '');
  if (report.syscallsSkipped) lines.push(`System calls not counted: ${report.syscallsSkipped}.`, '');
  lines.push('### Goals', '', '| goal | measured | verdict |', '|---|---|---|');
  for (const v of report.verdicts) lines.push(`| ${v.goal} | ${v.measured} | ${v.met === undefined ? '–' : v.met ? 'met' : 'not met'} |`);
  lines.push('', '### Target processes after the run', '', '| target | tool calls | failed | RSS MiB |', '|---|---:|---:|---:|');
  for (const [name, s] of Object.entries(report.targetStats) as [TargetName, TargetStats][]) {
    lines.push(`| ${TARGET_LABELS[name]} | ${int(s.toolCalls)} | ${int(s.toolErrors)} | ${(s.rssBytes / 2 ** 20).toFixed(0)} |`);
  }
  const failed = Object.entries(report.targetStats).filter(([, s]) => s.toolErrors > 0);
  lines.push(
    '',
    failed.length === 0
      ? 'No tool call failed on any target.'
      : `⚠ Failed tool calls: ${failed.map(([n, s]) => `${n} ${s.toolErrors}/${s.toolCalls}`).join(', ')}.`,
  );
  return lines.join('\n');
}
