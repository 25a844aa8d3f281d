import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../protocol/errors.js';
import type { Clock } from '../shared/clock.js';
import { StateUnavailableError, type StateStore } from '../state/state-store.js';
import type { FileLease, FileLocks } from '../tools/tool.js';

/** How long a file's lock is a holder's before another may take it: it bounds the wait when a holder dies or stalls. */
export const FILE_LEASE_MS = 5_000;
/** Asking again for a busy lock: soon at first (a lock is held for a few ms), then gently. */
const RETRY_FIRST_MS = 2;
const RETRY_MAX_MS = 50;

/** The tail of each file's queue of this process's writers; absent when none holds or waits. */
const tails = new Map<string, Promise<void>>();

/** Runs `work` once every earlier call of the same key in this process has finished: one process's writers of a file in turn. */
async function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  try {
    await previous;
    return await work();
  } finally {
    done();
    if (tails.get(key) === tail) tails.delete(key);
  }
}

interface FileLockDeps {
  state: StateStore;
  clock: Clock;
  tenant: string;
  /** The call's abort: waiting stops at its deadline. */
  call: { readonly aborted: boolean };
}

const unavailable = (err: unknown): GatewayError =>
  new GatewayError('STATE_UNAVAILABLE', {
    message: 'The state store is unreachable, so the file cannot be locked against writers on other replicas; nothing was written.',
    ...(err instanceof Error && { cause: err }),
  });

/** One call's file locks, taken in the state store: this process's writers of a file in turn, then the fleet's lease. */
export function createFileLocks(deps: FileLockDeps): FileLocks {
  return {
    acquire: (file, holder) =>
      new Promise<FileLease>((resolve, reject) => {
        void inTurn(JSON.stringify([deps.tenant, file]), async () => {
          let fence: string[];
          try {
            fence = await lease(deps, file, holder);
          } catch (err) {
            reject(err);
            return;
          }
          // This process's next writer of the file goes once this one ended its hold, released or not.
          await new Promise<void>((ended) =>
            resolve({
              fence,
              async release(fenced) {
                if (fenced) await deps.state.unlockFile(deps.tenant, file, holder).catch(() => undefined);
                ended();
              },
            }),
          );
        });
      }),
  };
}

/** Asks until granted; TIMEOUT once the call is aborted. */
async function lease(deps: FileLockDeps, file: string, holder: string): Promise<string[]> {
  for (let delay = RETRY_FIRST_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
    if (deps.call.aborted) {
      throw new GatewayError('TIMEOUT', {
        message: 'The call reached its deadline while another write of the same file held it; nothing was written.',
      });
    }
    let answer;
    try {
      answer = await deps.state.lockFile({ tenant: deps.tenant, path: file, holder, leaseMs: FILE_LEASE_MS }, deps.clock.now());
    } catch (err) {
      if (err instanceof StateUnavailableError) throw unavailable(err);
      throw err;
    }
    if (answer.outcome === 'granted') return answer.fence;
    await sleep(Math.min(delay, answer.retryAfterMs));
  }
}
