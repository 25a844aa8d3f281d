import { once } from 'node:events';
import { chown, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { isGatewayError } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createFsSpillStore } from '../../../src/spill/fs.js';
import type { SpillStore } from '../../../src/spill/spill-store.js';
import { setUpBash } from '../../../src/tools/bash/index.js';
import { createPolicy, type Policy } from '../../../src/policy/index.js';
import type { Tool, ToolOutput } from '../../../src/tools/tool.js';
import { createWorkspace } from '../../../src/tools/workspace.js';
import type { Workspace } from '../../../src/tools/workspace-types.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

/** The unprivileged user commands run as when the tests run as root (the workspace is chowned to it). */
export const NOBODY = 65534;
export const runningAsRoot = process.getuid?.() === 0;

/**
 * A temp workspace. Run as root (CI, this machine), it is given to nobody:
 * commands then run as nobody, so the process limit binds (the kernel never
 * applies RLIMIT_NPROC to root).
 */
export async function makeWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-bash-ws-'));
  if (runningAsRoot) await chown(dir, NOBODY, NOBODY);
  return dir;
}

const INSTALL_HINT =
  'The Bash sandbox tests need a working bubblewrap: apt-get install bubblewrap (.ci/run installs it), on a kernel that allows user namespaces.';

/** The workspace each tool of bashTool runs its commands in, as a call's context gives it, and the policy that judges them. */
const workspaces = new WeakMap<Tool, Workspace>();
const policies = new WeakMap<Tool, Policy>();

/** Bash on `workspace` with these settings (`builtins.Bash`), enabled; a set-up problem fails the test, with an install hint for bwrap. */
export function bashTool(workspace: string, settings: Record<string, unknown> = {}): Tool {
  const config = configFrom({ workspace, builtins: { Bash: { enabled: true, ...settings } } });
  const policy = createPolicy(config.policy.rules);
  const setup = setUpBash(config.builtins.Bash, workspace, true, policy);
  if (setup.problems.length > 0) throw new Error(`${setup.problems.join('\n')}\n${INSTALL_HINT}`);
  if (settings.sandbox === 'required' && setup.tool.sandbox?.mode !== 'bwrap') throw new Error(INSTALL_HINT);
  workspaces.set(setup.tool, createWorkspace(workspace));
  policies.set(setup.tool, policy);
  return setup.tool;
}

/** A real file-system spill store in a temp directory. */
export async function makeSpill(): Promise<{ store: SpillStore; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-bash-spill-'));
  return { store: createFsSpillStore({ dir, ttlMs: 60_000, clock: new ManualClock() }), dir };
}

/** What one call of the tool gave: its output, or the error it threw. */
export type Ran = { output: ToolOutput; error?: undefined } | { output?: undefined; error: { code: string; message: string } };

/** Runs `command` as the pipeline would: the permission gate's verdict on it, a call deadline, its abort signal, a spill for the tenant. */
export async function run(
  tool: Tool,
  command: string,
  options: { timeoutMs?: number; callMs?: number; spill?: SpillStore } = {},
): Promise<Ran> {
  const controller = new AbortController();
  const callMs = options.callMs ?? 15_000;
  const timer = setTimeout(() => controller.abort(), callMs);
  const spill = options.spill;
  const workspace = workspaces.get(tool)!;
  const args = options.timeoutMs === undefined ? { command } : { command, timeout_ms: options.timeoutMs };
  const { readOnly } = policies.get(tool)!.decideCall({
    tool: 'Bash',
    args,
    spellings: await tool.canonicalArgs!(args, workspace),
    requiresApproval: false,
    classify: (spelled) => tool.classify!(spelled, workspace),
  });
  try {
    const output = await tool.run(args, {
      signal: controller.signal,
      readOnly,
      get aborted() {
        return controller.signal.aborted;
      },
      workspace,
      caller: { tenant: 't1', keyId: 'k1', user: undefined },
      credentials: createEnvCredentials({}).for('test_tool'),
      sessionId: 's1',
      callId: 'c1',
      deadline: Date.now() + callMs,
      imageBytes: 5_242_880,
      fileLocks: { acquire: () => Promise.reject(new Error('Bash takes no file locks')) },
      spill: async (content) => {
        if (!spill) throw new Error('this test gives no spill store');
        return spill.put('t1', content);
      },
    });
    return { output };
  } catch (err) {
    if (isGatewayError(err)) return { error: { code: err.code, message: err.message } };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The host's processes whose command line holds `marker`. */
export async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) found.push(Number(entry));
  }
  return found;
}

/** The PID namespace of a process, e.g. `pid:[4026532301]`; undefined once it is gone. */
export const pidNamespaceOf = (pid: number) => readlink(`/proc/${pid}/ns/pid`).catch(() => undefined);

/** The tasks (threads counted, as the kernel's process limit counts them) living in PID namespace `ns`. */
export async function tasksIn(ns: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || (await pidNamespaceOf(Number(entry))) !== ns) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    count += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  }
  return count;
}

/** Polls `check` until it holds or `ms` pass; the last value. */
export async function eventually<T>(check: () => Promise<T>, holds: (value: T) => boolean, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (holds(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const removeAll = (...dirs: string[]) => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));

let calls = 0;

/**
 * One call as an agent makes it: sent, and when the policy asks for approval,
 * approved by an admin (POST /approvals/{id}) and sent again under a new call
 * id. `asked` says whether it had to be approved.
 */
export async function callApproving(app: TestApp['app'], name: string, args: Record<string, unknown>) {
  const first = await execute(app, [{ id: `call_${++calls}`, name, arguments: args }]);
  const result = first.body.results[0];
  if (result.error?.code !== 'APPROVAL_REQUIRED') return { body: first.body, asked: false };
  const decided = await app.inject({
    method: 'POST',
    url: `/approvals/${result.error.details.approval_id}`,
    payload: { decision: 'approve' },
  });
  expect(decided.statusCode).toBe(200);
  return { body: (await execute(app, [{ id: `call_${++calls}`, name, arguments: args }])).body, asked: true };
}

/**
 * The setup the gateway-level suites share: one workspace for the file, one app per test, closed after it so a
 * failing test leaves no server behind. `start` builds the app on that workspace with `config`.
 */
export function gatewayPerTest(): { readonly workspace: string; start(config?: Record<string, unknown>): Promise<TestApp['app']> } {
  let workspace: string | undefined;
  let t: TestApp | undefined;
  beforeAll(async () => {
    workspace = await makeWorkspace();
  });
  afterAll(() => removeAll(workspace!));
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  return {
    get workspace() {
      return workspace!;
    },
    async start(config) {
      t = await buildTestApp({ workspace: workspace!, config });
      return t.app;
    },
  };
}

/** A loopback TCP server for the suite that counts the connections it gets (each answered `reply`). */
export function loopbackCounter(reply: string): { readonly port: number; readonly connections: number } {
  const state = { port: 0, connections: 0 };
  const server = createServer((socket) => {
    state.connections++;
    socket.end(reply);
  });
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    state.port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}
