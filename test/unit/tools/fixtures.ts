import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFileLocks } from '../../../src/pipeline/file-locks.js';
import { systemClock } from '../../../src/shared/clock.js';
import { createMemoryStateStore } from '../../../src/state/memory/index.js';
import type { Tool, ToolContext } from '../../../src/tools/tool.js';
import { createPolicy } from '../../../src/policy/index.js';
import { createBuiltinTools } from '../../../src/tools/builtin/index.js';
import { createWorkspace } from '../../../src/tools/workspace.js';
import type { Workspace } from '../../../src/tools/workspace-types.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

/** One store for every call of a test file, as one process has one: the file locks of all of them meet there. */
const state = createMemoryStateStore();

/** A call's context; `workspace` is the caller's (a tool that touches files needs one). */
export function makeCtx(signal: AbortSignal = new AbortController().signal, workspace?: Workspace): ToolContext {
  const call = {
    signal,
    get aborted() {
      return signal.aborted;
    },
    get workspace(): Workspace {
      if (!workspace) throw new Error('this test gave the call no workspace');
      return workspace;
    },
    caller: { tenant: 'tenant-a', keyId: 'key-a', user: undefined },
    credentials: createEnvCredentials({}).for('test_tool'),
    sessionId: 'session-1',
    callId: 'call_1',
    deadline: Date.now() + 30_000,
    imageBytes: 5_242_880,
    spill: () => {
      throw new Error('the built-in file tools never spill');
    },
  };
  // Assigned, not spread: a spread would read `aborted` once.
  return Object.assign(call, { fileLocks: createFileLocks({ state, clock: systemClock, tenant: call.caller.tenant, call }) });
}

export const SENTINEL = 'SENTINEL: outside the workspace\n';

/**
 * A temp base holding the workspace `ws`, a directory `outside` with a
 * sentinel file, and a sibling `ws-evil` whose name shares the root's prefix.
 */
export interface Sandbox {
  base: string;
  root: string;
  /** The workspace on `root`, the calls' own. */
  ws: Workspace;
  /** A call's context on `ws`. */
  ctx(signal?: AbortSignal): ToolContext;
  outside: string;
  sibling: string;
  tools: Record<string, Tool>;
  /** Write files under the root, creating directories. */
  put(files: Record<string, string>): Promise<void>;
  link(target: string, name: string): Promise<void>;
  read(rel: string): Promise<string>;
  /** Everything outside the root: names under `outside` and `ws-evil`, and the sentinel's content. */
  outsideState(): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await mkdtemp(path.join(tmpdir(), 'toolgate-tools-'));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const sibling = path.join(base, 'ws-evil');
  await Promise.all([mkdir(root), mkdir(outside), mkdir(sibling)]);
  await writeFile(path.join(outside, 'secret.txt'), SENTINEL);
  await writeFile(path.join(sibling, 'secret.txt'), SENTINEL);
  const tools = Object.fromEntries(createBuiltinTools(createPolicy([])).map((tool) => [tool.name, tool]));
  const ws = createWorkspace(root);
  const list = async (dir: string): Promise<string[]> => (await readdir(dir, { recursive: true })).map(String).sort();
  return {
    base,
    root,
    ws,
    ctx: (signal) => makeCtx(signal, ws),
    outside,
    sibling,
    tools,
    async put(files) {
      for (const [rel, content] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
        await writeFile(path.join(root, rel), content);
      }
    },
    link: (target, name) => symlink(target, path.join(root, name)),
    read: (rel) => readFile(path.join(root, rel), 'utf8'),
    async outsideState() {
      const state = {
        base: (await readdir(base)).sort(),
        outside: await list(outside),
        sibling: await list(sibling),
        sentinels: [await readFile(path.join(outside, 'secret.txt'), 'utf8'), await readFile(path.join(sibling, 'secret.txt'), 'utf8')],
      };
      return JSON.stringify(state);
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

export function run(sandbox: Sandbox, name: string, args: Record<string, unknown>, ctx: ToolContext = sandbox.ctx()) {
  const tool = sandbox.tools[name];
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.run(args, ctx);
}
