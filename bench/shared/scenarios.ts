import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One tool call of a scenario, before it is put in a wire format. */
export interface BenchCall {
  name: string;
  args: Record<string, unknown>;
}

export interface Scenario {
  id: string;
  title: string;
  callsPerRequest: number;
  /**
   * The calls of request number `n` against target `target`. Scenarios with an
   * Edit give every request its own session and file (see `EDIT_SLOTS`); the
   * others send the same calls every time. Every request has call ids of its
   * own (see `executeBody`).
   */
  calls(n: number, target: string): BenchCall[];
  /** Whether request `n`'s calls depend on `n` (an Edit's session and file). */
  perRequest: boolean;
}

/**
 * Edits of one file must not overlap: two at once fail with CONFLICT (the
 * second would overwrite a change it never read). Request n edits slot
 * n % EDIT_SLOTS of its target's own set, so a file is edited again only after
 * 1023 other requests have started; with at most 64 in flight the earlier edit
 * of it is long done. Each slot is also a session, so the lock toolgate keeps
 * for the file is the one its last Edit left.
 */
export const EDIT_SLOTS = 1024;
const MARKER = '@@';

export const READ_FILE = 'read-4k.txt';
export const LINE_FILE = 'read-line.txt';

const noop: BenchCall = { name: 'Noop', args: {} };
const read4k: BenchCall = { name: 'Read', args: { path: READ_FILE } };
const readLine: BenchCall = { name: 'Read', args: { path: LINE_FILE } };

export const SCENARIOS: readonly Scenario[] = [
  { id: 'noop', title: 'One no-op call per request', callsPerRequest: 1, perRequest: false, calls: () => [noop] },
  {
    id: 'noop10',
    title: 'Ten concurrency-safe no-op calls per request',
    callsPerRequest: 10,
    perRequest: false,
    calls: () => Array.from({ length: 10 }, () => noop),
  },
  {
    id: 'read4k',
    title: 'One Read of a 4 KB file per request',
    callsPerRequest: 1,
    perRequest: false,
    calls: () => [read4k],
  },
  {
    id: 'read4k10',
    title: 'Ten Reads of a 4 KB file per request',
    callsPerRequest: 10,
    perRequest: false,
    calls: () => Array.from({ length: 10 }, () => read4k),
  },
  {
    id: 'readline10',
    title: 'Ten Reads of a one-line file per request',
    callsPerRequest: 10,
    perRequest: false,
    calls: () => Array.from({ length: 10 }, () => readLine),
  },
  {
    id: 'mixed',
    title: 'Mixed batch: 3 Read, 1 Edit, 2 Grep per request',
    callsPerRequest: 6,
    perRequest: true,
    calls: (n, target) => [
      { name: 'Read', args: { path: 'src/a.ts' } },
      { name: 'Read', args: { path: 'src/b.ts' } },
      { name: 'Read', args: { path: 'src/c.ts' } },
      // "@@" becomes "@@.": the marker stays unique, so every later Edit of the file finds it again.
      { name: 'Edit', args: { path: `edit/${target}/${n % EDIT_SLOTS}.txt`, old_string: MARKER, new_string: `${MARKER}.` } },
      { name: 'Grep', args: { pattern: 'function', path: 'src' } },
      { name: 'Grep', args: { pattern: 'TODO', path: 'src' } },
    ],
  },
];

/**
 * A POST /execute body (OpenAI `tool_calls`), the same for toolgate and the
 * floor. Call ids are fresh in every request, as a model's are: `call_<n>_<i>`.
 */
export function executeBody(scenario: Scenario, n: number, target: string): string {
  const calls = scenario.calls(n, target).map((call, i) => ({
    id: `call_${n}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
  return JSON.stringify(scenario.perRequest ? { session_id: `bench-${n % EDIT_SLOTS}`, tool_calls: calls } : { tool_calls: calls });
}

const ID_MARK = '\u0000n\u0000';

/**
 * The bodies of a scenario whose calls do not vary, request by request, at the
 * cost of a string replace: the load generator must keep up with the floor.
 */
export function executeBodies(scenario: Scenario, target: string): (n: number) => string {
  if (scenario.perRequest) return (n) => executeBody(scenario, n, target);
  const [before, ...rest] = executeBody(scenario, 0, target).split('"call_0_');
  const template = [before, ...rest.map((part) => `"call_${ID_MARK}_${part}`)].join('');
  return (n) => template.replaceAll(ID_MARK, String(n));
}

/** One MCP JSON-RPC tools/call request: the protocol has no batch of calls, so a scenario request is one of these per call. */
export function mcpBody(call: BenchCall, id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: call.name, arguments: call.args } });
}

function sourceFile(name: string): string {
  const lines = [`// ${name}: a source file for Grep and Read`, ''];
  for (let i = 0; i < 12; i++) {
    lines.push(`export function ${name}${i}(value: number): number {`, `  return value * ${i} + ${name.length};`, '}', '');
  }
  lines.push('// TODO: nothing, this file only fills the workspace', '');
  return lines.join('\n');
}

/** 64 lines of 64 bytes. */
function fourKilobytes(): string {
  return Array.from(
    { length: 64 },
    (_, i) => `line ${String(i + 1).padStart(4, '0')}: ${'lorem ipsum dolor sit amet '.repeat(2)}`.slice(0, 63) + '\n',
  ).join('');
}

/** The workspace every target serves: the Read files, three sources, and each target's own Edit files. */
export async function createWorkspace(root: string, targets: readonly string[]): Promise<void> {
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, READ_FILE), fourKilobytes());
  await writeFile(join(root, LINE_FILE), 'a file of one line\n');
  for (const name of ['a', 'b', 'c']) await writeFile(join(root, 'src', `${name}.ts`), sourceFile(name));
  for (const target of targets) {
    const dir = join(root, 'edit', target);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: EDIT_SLOTS }, (_, slot) => writeFile(join(dir, `${slot}.txt`), `edit target ${slot}\nmarker ${MARKER}\n`)),
    );
  }
}
