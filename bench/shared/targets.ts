import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../src/node-flags.js';
import type { ChildMessage, ParentMessage, ProcessUsage, ProfileKind, TargetStats } from '../targets/child.js';

/** `many-tools`: the memory-store gateway with a catalog of 500 HTTP tools, for the many-tools and search scenarios only. */
/** `audit`: the memory-store gateway with its audit trail on (file store), to compare with `memory`. */
/** `no-guardrails`: the memory-store gateway with `guardrails.secrets: off`, to compare with `memory` (on by default). */
/** `api-key` and `jwt`: the memory-store gateway with one API key and one OAuth issuer; the load sends the key, or an access token. */
export type TargetName = 'floor' | 'memory' | 'redis' | 'mcp' | 'many-tools' | 'audit' | 'no-guardrails' | 'api-key' | 'jwt';

/** A target server in a child process of its own, so the load generator does not share its event loop. */
export interface Target {
  name: TargetName;
  /** POST /execute (floor, toolgate) or POST /mcp (the MCP peer). */
  protocol: 'execute' | 'mcp';
  /** Headers every request to it carries (the caller's `authorization`); absent: none. */
  headers?: Record<string, string>;
  url: string;
  /** The child's process id, for strace to attach to. */
  pid: number;
  stats(): Promise<TargetStats>;
  /** CPU time and garbage-collection pauses the target's process has had so far. */
  usage(): Promise<ProcessUsage>;
  /** Count the async resources the target creates from now until `resourcesStop`, by type. */
  resourcesStart(): Promise<void>;
  resourcesStop(): Promise<Record<string, number>>;
  /** Start V8's CPU profiler or sampling heap profiler in the target; `profileStop` writes what it recorded to `file`. */
  profileStart(kind: ProfileKind): Promise<void>;
  profileStop(kind: ProfileKind, file: string): Promise<void>;
  stop(): Promise<void>;
}

export const TARGET_LABELS: Record<TargetName, string> = {
  floor: 'floor (bare Fastify)',
  memory: 'toolgate, memory store',
  redis: 'toolgate, Redis store',
  mcp: 'MCP SDK server',
  'many-tools': 'toolgate, memory store, 500 HTTP tools (realistic catalog)',
  audit: 'toolgate, memory store, audit trail on (file store)',
  'no-guardrails': 'toolgate, memory store, secret scanner off',
  'api-key': 'toolgate, memory store, an API-key caller',
  jwt: 'toolgate, memory store, an OAuth access-token (JWT) caller',
};

const STOP_TIMEOUT_MS = 10_000;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY: Record<TargetName, string> = {
  floor: 'floor.ts',
  memory: 'gateway.ts',
  redis: 'gateway.ts',
  mcp: 'mcp-peer.ts',
  'many-tools': 'gateway.ts',
  audit: 'gateway.ts',
  'no-guardrails': 'gateway.ts',
  'api-key': 'gateway.ts',
  jwt: 'gateway.ts',
};

/**
 * Start a target's entry under tsx (`node --import tsx`); the gateway's entry
 * then loads toolgate itself from the build (see gateway.ts). stdout goes to
 * /dev/null: toolgate's JSON log lines are written (and paid for) but not kept.
 * With `cpus` (a `taskset -c` list) the process and all its threads run on
 * those CPUs only; taskset execs node, so the pid is node's. Every target runs
 * with the Node flags toolgate ships with (src/node-flags.ts), the floor and
 * the MCP peer too: the ratios compare code, not runtime settings.
 */
export async function startTarget(name: TargetName, options: object, cpus?: string): Promise<Target> {
  const argv = [
    process.execPath,
    ...NODE_FLAGS,
    '--import',
    'tsx',
    fileURLToPath(new URL(`../targets/${ENTRY[name]}`, import.meta.url)),
    JSON.stringify(options),
  ];
  const [command, ...args] = cpus === undefined ? argv : ['taskset', '-c', cpus, ...argv];
  const child = spawn(command!, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${name} exited with ${code} before it listened`));
    child.once('exit', onExit);
    child.once('message', (message: ChildMessage) => {
      child.off('exit', onExit);
      if (message.type === 'ready') resolve(message.port);
      else reject(new Error(`${name} sent ${message.type} before ready`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    protocol: name === 'mcp' ? 'mcp' : 'execute',
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stats: async () => {
      const reply = await request(child, { type: 'stats' });
      if (reply.type !== 'stats') throw new Error(`${name} answered ${reply.type} to stats`);
      return reply.stats;
    },
    usage: async () => {
      const reply = await request(child, { type: 'usage' });
      if (reply.type !== 'usage') throw new Error(`${name} answered ${reply.type} to usage`);
      return reply.usage;
    },
    resourcesStart: async () => void (await request(child, { type: 'resources-start' })),
    resourcesStop: async () => {
      const reply = await request(child, { type: 'resources-stop' });
      if (reply.type !== 'resources') throw new Error(`${name} answered ${reply.type} to resources-stop`);
      return reply.created;
    },
    profileStart: async (kind) => void (await request(child, { type: 'profile-start', kind })),
    profileStop: async (kind, file) => void (await request(child, { type: 'profile-stop', kind, file })),
    async stop() {
      if (child.exitCode === null && child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
      // A child that does not close in time is killed: the bench must not leave servers behind.
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One message to the child and its reply; the runner sends one at a time. */
function request(child: ChildProcess, message: ParentMessage): Promise<ChildMessage> {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
}
