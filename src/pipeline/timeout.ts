import { GatewayError } from '../protocol/errors.js';
import type { ExecContext, PlannedCall } from './types.js';

/** A call's deadline: its tool's timeout, lowered (never raised) by the request's `timeout_ms`. */
export function callTimeout(call: PlannedCall, ctx: ExecContext): number {
  const own = call.entry!.timeoutMs;
  return ctx.timeoutMs === undefined ? own : Math.min(own, ctx.timeoutMs);
}

/**
 * An AbortController made on first use. On Node 20 making an AbortSignal
 * costs around 10 µs (the `createAbortSignal` of the bench profile), more
 * than all the gates of a no-op call together; a tool that finishes without
 * reading its signal needs none. Aborting makes one, so a tool that reads
 * the signal only after the deadline still finds it aborted.
 */
class LazyAbortController {
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** Aborting makes the controller, so none made yet means not aborted. */
  get aborted(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  abort(reason: unknown): void {
    (this.controller ??= new AbortController()).abort(reason);
  }
}

/** A call's abort at its deadline: the signal, made when first read, and whether it fired, read without making it. */
export interface CallAbort {
  readonly signal: AbortSignal;
  readonly aborted: boolean;
}

/**
 * Run `work` with a hard deadline. The signal tells the tool to stop; a tool
 * that ignores it still loses at the deadline, and whatever it returns later
 * is dropped. `work` gets the signal behind a getter: read it only where it
 * is used (see LazyAbortController). `cancel`, when the caller aborts it,
 * stops the tool the same way before the deadline: CANCELLED. One promise of
 * its own, not a race of three: this runs for every call, and each promise
 * and its microtasks showed in the bench profile.
 */
export function runWithTimeout<T>(timeoutMs: number, work: (abort: CallAbort) => Promise<T>, cancel?: AbortSignal): Promise<T> {
  const controller = new LazyAbortController();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let stop: (() => void) | undefined;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      if (stop) cancel?.removeEventListener('abort', stop);
      return true;
    };
    const end = (error: GatewayError) => {
      if (!settle()) return;
      controller.abort(error);
      reject(error);
    };
    const timer = setTimeout(
      () =>
        end(
          new GatewayError('TIMEOUT', {
            message: `The tool did not finish within ${timeoutMs} ms.`,
            suggestion: 'Retry, or ask for less work in one call.',
          }),
        ),
      timeoutMs,
    );
    if (cancel) {
      stop = () => end(new GatewayError('CANCELLED', { message: 'The client cancelled the call.' }));
      if (cancel.aborted) stop();
      else cancel.addEventListener('abort', stop, { once: true });
    }
    // Started even when already cancelled, as the tool of a call cancelled in flight has started: it sees its signal aborted.
    let running: Promise<T>;
    try {
      running = Promise.resolve(work(controller));
    } catch (err) {
      running = Promise.reject(err as Error);
    }
    running.then(
      (value) => settle() && resolve(value),
      (err: unknown) => settle() && reject(err),
    );
  });
}
