import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { SpillOutcome } from '../../spill/spill-store.js';
import type { ToolContext } from '../tool.js';
import type { Identity } from './identity.js';
import type { Launch } from './sandbox.js';

/** One output stream of a command: its first `cap` bytes, how many it wrote in all, and where the whole stream went when it wrote more. */
export interface Captured {
  head: Buffer;
  bytes: number;
  spilled?: SpillOutcome;
}

export interface RunOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Killed at the deadline (its own or the call's). */
  timedOut: boolean;
  stdout: Captured;
  stderr: Captured;
}

interface RunRequest {
  launch: Launch;
  cwd: string;
  env: NodeJS.ProcessEnv;
  identity: Identity;
  /** Epoch ms at which the whole process group is killed. */
  deadline: number;
  /** The call's own abort (its deadline in the pipeline): kills the group as well. */
  signal: AbortSignal;
  capBytes: number;
  spill: ToolContext['spill'];
}

/**
 * After the command's first process exits, how long its streams may still
 * drain. Its process group is killed at that exit, so only a process that
 * left the group (possible without the sandbox) can hold them open longer.
 */
const DRAIN_MS = 2_000;

/**
 * Reads a stream whole up to `capBytes`; past that, the head read so far and
 * the rest of the stream go to the spill store as they arrive, so memory
 * holds about `capBytes` whatever the command writes. A stream torn down at
 * the deadline ends the capture with what was read.
 */
async function capture(stream: Readable, capBytes: number, spill: ToolContext['spill']): Promise<Captured> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  try {
    while (size <= capBytes) {
      const next = await iterator.next();
      if (next.done) return { head: Buffer.concat(head, size), bytes: size };
      head.push(next.value);
      size += next.value.length;
    }
  } catch {
    return { head: Buffer.concat(head, size).subarray(0, capBytes), bytes: size };
  }
  const kept = Buffer.from(Buffer.concat(head, size).subarray(0, capBytes));
  const whole = async function* () {
    while (head.length > 0) yield head.shift()!;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  };
  try {
    const record = await spill(whole());
    return { head: kept, bytes: record.bytes, spilled: record };
  } catch {
    return { head: kept, bytes: size };
  }
}

/** SIGKILL to every process of the group; one already gone is fine. */
function killGroup(pgid: number | undefined): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already empty.
  }
}

/**
 * Runs one command to its end or its deadline. The child leads a process
 * group of its own (detached), so one kill reaches everything it started
 * that stayed in the group; in bubblewrap, its PID namespace ends with it and
 * takes every other process in it along. The group is killed at the
 * deadline, on the call's abort, and once the first process exits (nothing a
 * command starts outlives its call). stdin is /dev/null.
 */
export async function runCommand(request: RunRequest): Promise<RunOutcome> {
  const { launch, identity } = request;
  const child = spawn(launch.file, launch.args, {
    cwd: request.cwd,
    env: request.env,
    ...identity,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let timedOut = false;
  const expire = () => {
    timedOut = true;
    killGroup(child.pid);
  };
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const stdout = capture(child.stdout, request.capBytes, request.spill);
  const stderr = capture(child.stderr, request.capBytes, request.spill);
  const timer = setTimeout(expire, Math.max(0, request.deadline - Date.now()));
  if (request.signal.aborted) expire();
  request.signal.addEventListener('abort', expire, { once: true });
  try {
    const { code, signal } = await exited;
    killGroup(child.pid);
    const drained = setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
    }, DRAIN_MS);
    const [out, err] = await Promise.all([stdout, stderr]);
    clearTimeout(drained);
    return { exitCode: code, signal, timedOut, stdout: out, stderr: err };
  } catch (err) {
    child.stdout.destroy();
    child.stderr.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', expire);
  }
}
