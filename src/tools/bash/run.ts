import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { SpillOutcome } from '../../spill/spill-store.js';
import type { ToolContext } from '../tool.js';
import type { Identity } from './identity.js';
import type { Launch } from './sandbox.js';

/** Bytes kept past the cap, scanned with the head and cut after the scan (the longest credential on one line). */
const SCANNED_PAST_CAP = 16 * 1024;

/** One output stream: its head, how many bytes it wrote, and where the whole went when it wrote more than the cap. */
export interface Captured {
  head: Buffer;
  bytes: number;
  spilled?: SpillOutcome;
}

export interface RunOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Killed at `deadline` or on the call's abort. */
  timedOut: boolean;
  stdout: Captured;
  stderr: Captured;
}

interface RunRequest {
  launch: Launch;
  cwd: string;
  env: NodeJS.ProcessEnv;
  identity: Identity;
  /** Epoch ms at which the whole process group is killed, when the command's is before the call's. */
  deadline?: number;
  /** The call's abort at its deadline (pipeline/timeout.ts) or on cancel: kills the group. */
  signal: AbortSignal;
  capBytes: number;
  spill: ToolContext['spill'];
}

/** How long the streams may drain once the first process exited (and its group was killed). */
const DRAIN_MS = 2_000;

/** Reads a stream up to `capBytes`; past that the head and the rest go to the spill store as they arrive. */
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
    // Past the cap: read on to SCANNED_PAST_CAP more, which the spill gets with the rest, in order.
    while (size < capBytes + SCANNED_PAST_CAP) {
      const next = await iterator.next();
      if (next.done) break;
      head.push(next.value);
      size += next.value.length;
    }
  } catch {
    return { head: Buffer.concat(head, size).subarray(0, capBytes + SCANNED_PAST_CAP), bytes: size };
  }
  const kept = Buffer.from(Buffer.concat(head, size).subarray(0, capBytes + SCANNED_PAST_CAP));
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
 * Runs one command in a process group of its own, killed at `deadline`, on the call's abort and once the first process exits. stdin is
 * /dev/null.
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
  const timer = request.deadline === undefined ? undefined : setTimeout(expire, Math.max(0, request.deadline - Date.now()));
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
