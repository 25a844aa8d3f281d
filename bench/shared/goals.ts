import type { ManyToolsReport, ScenarioReport, Verdict } from './report.js';
import { busy, type Cell } from './summary.js';

/** Where the goals are checked; the 1-connection figure is shown beside it. */
const GOAL_CONNECTIONS = 16;
const SINGLE = 1;

/**
 * Below this share of its CPU the floor was not kept busy (the load generator
 * could not send faster), so its requests/s is not its capacity.
 */
const SATURATED = 0.9;

/**
 * More full collections a second than this in a cell means the heap is being
 * collected back to back (a healthy run makes 0-0.6 a second; a gateway whose
 * old space sat at its limit made one every ~120 ms: docs/performance-notebook.md).
 */
const MARK_COMPACTS_PER_S = 2;

/** The cell at 16 connections, or the run's highest count below it when 16 was not run. */
function cellAt<C extends { connections: number }>(cells: readonly C[]): C | undefined {
  return cells.find((c) => c.connections === GOAL_CONNECTIONS) ?? cells.filter((c) => c.connections < GOAL_CONNECTIONS).at(-1) ?? cells[0];
}

const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a / b);
// Three decimals below 1, so a ratio just under a goal of 0.5 never prints as 0.50.
const x = (v: number) => `${v.toFixed(v < 1 ? 3 : 2)} ×`;

function check(goal: string, value: number | undefined, threshold: number, describe: (v: number) => string, atMost = false): Verdict {
  return value === undefined || Number.isNaN(value)
    ? { goal, measured: 'not measured' }
    : { goal, measured: describe(value), met: atMost ? value <= threshold : value >= threshold };
}

/**
 * The goals, checked at 16 connections (see `cellAt`) on whatever the run
 * measured (pinned unless --no-pin). A ratio to the floor also shows the
 * same ratio at 1 connection when the run has it.
 */
export function verdicts(scenarios: readonly ScenarioReport[], manyTools?: ManyToolsReport): Verdict[] {
  const cellsOf = (id: string): readonly Cell[] => scenarios.find((s) => s.id === id)?.cells ?? [];
  const cellOf = (id: string) => cellAt(cellsOf(id));
  const at = (cell: { connections: number } | undefined) => (cell ? ` at ${cell.connections} conn.` : '');
  /** `value` over the floor's, of target `store` in scenario `id`: at 16 connections, described with the 1-connection figure. */
  const overFloor = (id: string, store: 'memory' | 'redis', key: 'requestsPerS' | 'p99Ms') => {
    const cell = cellOf(id);
    const single = cellsOf(id).find((c) => c.connections === SINGLE);
    const of = (c: Cell | undefined) => ratio(c?.targets[store]?.[key], c?.targets.floor?.[key]);
    const also = single && single !== cell ? of(single) : undefined;
    const describe = (v: number) => `${x(v)}${at(cell)}${also === undefined ? '' : ` (${x(also)} at ${SINGLE} conn.)`}`;
    return { value: of(cell), describe };
  };
  /**
   * Requests/s over the floor's, as `overFloor`; when the floor was not kept
   * busy, its CPU time per request over the target's instead (pinned and
   * saturated the two agree), saying so.
   */
  const capacityOverFloor = (id: string, store: 'memory' | 'redis') => {
    const cell = cellOf(id);
    const floor = cell?.targets.floor;
    const floorBusy = floor ? busy(floor) : Number.NaN;
    if (!(floorBusy < SATURATED)) return overFloor(id, store, 'requestsPerS');
    const value = ratio(floor?.cpuUsPerRequest, cell?.targets[store]?.cpuUsPerRequest);
    const describe = (v: number) =>
      `${x(v)} in CPU per request${at(cell)}: the floor was ${Math.round(floorBusy * 100)} % busy, short of its capacity, so its requests/s is not (requests/s: ${x(overFloor(id, store, 'requestsPerS').value ?? Number.NaN)})`;
    return { value, describe };
  };
  const rows: Verdict[] = [];
  for (const [id, what, goals] of [
    ['noop', 'One no-op call', { memory: 0.5, redis: 0.45 }],
    ['read4k', 'One Read of 4 KB', { memory: 0.5, redis: 0.45 }],
    ['readline10', 'Ten Reads of a one-line file', { memory: 0.5, redis: 0.5 }],
  ] as const) {
    for (const [store, label] of [
      ['memory', 'memory store'],
      ['redis', 'Redis store'],
    ] as const) {
      const { value, describe } = capacityOverFloor(id, store);
      rows.push(check(`${what}, ${label}: ≥ ${goals[store]} × the floor’s requests/s`, value, goals[store], describe));
    }
  }
  for (const [ten, one, what] of [
    ['noop10', 'noop', 'no-op'],
    ['read4k10', 'read4k', 'Read'],
  ] as const) {
    const [many, single] = [cellOf(ten), cellOf(one)];
    for (const [store, label] of [
      ['memory', 'memory store'],
      ['redis', 'Redis store'],
    ] as const) {
      const value = ratio(many?.targets[store]?.callsPerS, single?.targets[store]?.callsPerS);
      rows.push(
        check(`Ten ${what} calls per request: ≥ 5 × the tool calls/s of one per request (${label})`, value, 5, (v) => x(v) + at(many)),
      );
    }
  }
  for (const [id, what] of [
    ['noop', 'one no-op call'],
    ['read4k', 'one Read of 4 KB'],
  ] as const) {
    const { value, describe } = overFloor(id, 'memory', 'p99Ms');
    rows.push(check(`p99 within 2 × the floor’s p99 (memory, ${what})`, value, 2, describe, true));
  }
  const noop = cellOf('noop');
  const ten = cellOf('noop10');
  if (scenarios.some((s) => s.cells.some((c) => c.targets.mcp))) {
    rows.push(
      check(
        'One call: ≥ 4 × the MCP server’s tool calls/s (memory)',
        ratio(noop?.targets.memory?.callsPerS, noop?.targets.mcp?.callsPerS),
        4,
        (v) => x(v) + at(noop),
      ),
      check(
        'Ten calls: ≥ 20 × the MCP server’s tool calls/s (memory)',
        ratio(ten?.targets.memory?.callsPerS, ten?.targets.mcp?.callsPerS),
        20,
        (v) => x(v) + at(ten),
      ),
    );
  }
  const read4k = cellOf('read4k');
  if (read4k?.targets['no-guardrails']) {
    rows.push(
      check(
        'Secret scanner on: ≥ 0.95 × its requests/s off (one Read of 4 KB, memory against no-guardrails)',
        ratio(read4k.targets.memory?.requestsPerS, read4k.targets['no-guardrails'].requestsPerS),
        0.95,
        (v) => x(v) + at(read4k),
      ),
    );
  }
  if (read4k?.targets.jwt && read4k.targets['api-key']) {
    rows.push(
      check(
        'An access-token caller: ≥ 0.95 × an API-key caller’s requests/s (one Read of 4 KB, jwt against api-key)',
        ratio(read4k.targets.jwt.requestsPerS, read4k.targets['api-key'].requestsPerS),
        0.95,
        (v) => x(v) + at(read4k),
      ),
    );
  }
  if (read4k?.targets.audit) {
    rows.push(
      check(
        'Audit trail on: ≥ 0.95 × its requests/s off (one Read of 4 KB, audit against memory)',
        ratio(read4k.targets.audit.requestsPerS, read4k.targets.memory?.requestsPerS),
        0.95,
        (v) => x(v) + at(read4k),
      ),
    );
  }
  rows.push(collectionSpiral(scenarios));
  const read = scenarios.find((s) => s.id === 'read4k')?.syscalls?.targets;
  const sampled = (v: number) => `${x(v)} (${read!.memory!.perRequest.toFixed(1)} against ${read!.floor!.perRequest.toFixed(1)})`;
  rows.push(
    check(
      'System calls per one-Read request ≤ 1.3 × the floor’s (memory)',
      ratio(read?.memory?.perRequest, read?.floor?.perRequest),
      1.3,
      sampled,
      true,
    ),
  );
  if (manyTools) {
    const cell = cellAt(manyTools.cells);
    const grows = (kind: 'revalidate' | 'noop') => ratio(cell?.[kind]['many-tools']?.requestsPerS, cell?.[kind].memory?.requestsPerS);
    rows.push(
      check(
        `Execute cost does not grow with the catalog: one Noop with ${manyTools.httpTools} HTTP tools ≥ 0.9 × the small registry’s requests/s`,
        grows('noop'),
        0.9,
        (v) => x(v) + at(cell),
      ),
      check(
        `GET /tools revalidation (304) does not grow with the catalog: ≥ 0.9 × the small registry’s requests/s`,
        grows('revalidate'),
        0.9,
        (v) => x(v) + at(cell),
      ),
    );
  }
  return rows;
}

/** The most full collections a second of a toolgate target in any cell of any scenario, and where. */
function collectionSpiral(scenarios: readonly ScenarioReport[]): Verdict {
  let worst: { rate: number; where: string } | undefined;
  for (const scenario of scenarios) {
    for (const cell of scenario.cells) {
      for (const store of ['memory', 'redis'] as const) {
        const rate = cell.targets[store]?.markCompactsPerS;
        if (rate !== undefined && !Number.isNaN(rate) && !(worst && worst.rate >= rate)) {
          worst = { rate, where: `${scenario.id}, ${store}, ${cell.connections} conn.` };
        }
      }
    }
  }
  return check(
    `No garbage-collection spiral: ≤ ${MARK_COMPACTS_PER_S} mark-compacts/s in every cell (memory and Redis store)`,
    worst?.rate,
    MARK_COMPACTS_PER_S,
    (v) => `at most ${v.toFixed(1)}/s (${worst!.where})`,
    true,
  );
}
