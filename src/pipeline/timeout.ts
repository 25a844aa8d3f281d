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
 * that ignores it still loses the race at the deadline, and whatever it
 * returns later is dropped. `work` gets the signal behind a getter: read it
 * only where it is used (see LazyAbortController). `cancel`, when the caller
 * aborts it, stops the tool the same way before the deadline: CANCELLED.
 */
export async function runWithTimeout<T>(timeoutMs: number, work: (abort: CallAbort) => Promise<T>, cancel?: AbortSignal): Promise<T> {
  const controller = new LazyAbortController();
  let timer: NodeJS.Timeout | undefined;
  let stop: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    const end = (error: GatewayError) => {
      controller.abort(error);
      reject(error);
    };
    timer = setTimeout(
      () =>
        end(
          new GatewayError('TIMEOUT', {
            message: `The tool did not finish within ${timeoutMs} ms.`,
            suggestion: 'Retry, or ask for less work in one call.',
          }),
        ),
      timeoutMs,
    );
    if (!cancel) return;
    stop = () => end(new GatewayError('CANCELLED', { message: 'The client cancelled the call.' }));
    if (cancel.aborted) stop();
    else cancel.addEventListener('abort', stop, { once: true });
  });
  const running = Promise.resolve().then(() => work(controller));
  running.catch(() => undefined);
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
    if (stop) cancel?.removeEventListener('abort', stop);
  }
}
