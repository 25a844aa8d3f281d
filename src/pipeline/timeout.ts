import { GatewayError } from '../protocol/errors.js';
import type { ExecContext, PlannedCall } from './types.js';

/** A call's deadline: its tool's timeout, lowered (never raised) by the request's `timeout_ms`. */
export function callTimeout(call: PlannedCall, ctx: ExecContext): number {
  const own = call.entry!.timeoutMs;
  return ctx.timeoutMs === undefined ? own : Math.min(own, ctx.timeoutMs);
}

/** An AbortController made on first use: a tool that never reads its signal costs none. Aborting makes one. */
class LazyAbortController implements CallAbort {
  private controller: AbortController | undefined;

  constructor(readonly deadline: number) {}

  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  get aborted(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  abort(reason: unknown): void {
    (this.controller ??= new AbortController()).abort(reason);
  }
}

/**
 * A call's deadline (epoch ms) and its abort there: the signal, made when
 * first read, and whether it fired, read without making it. The one home of
 * a call's timeout: a tool asks it (ToolContext.deadline and signal) and
 * sets no timer of its own for it.
 */
export interface CallAbort {
  readonly deadline: number;
  readonly signal: AbortSignal;
  readonly aborted: boolean;
}

/**
 * Run `work` with a hard deadline: the signal tells the tool to stop, and a tool that ignores it still loses at the deadline
 * (a later answer is dropped). `cancel` stops it the same way before the deadline: CANCELLED.
 */
export function runWithTimeout<T>(timeoutMs: number, work: (abort: CallAbort) => Promise<T>, cancel?: AbortSignal): Promise<T> {
  const controller = new LazyAbortController(Date.now() + timeoutMs);
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
