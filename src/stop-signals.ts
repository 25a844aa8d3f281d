import type { Logger } from 'pino';

/**
 * Ctrl-C under `npm start` reaches the process twice at once (the terminal
 * signals the whole process group and npm forwards its own copy): a repeat
 * this soon is the same request to stop. A later one means "stop now".
 */
const REPEAT_SIGNAL_MS = 1_000;

/**
 * SIGTERM/SIGINT run `stop` once, then exit 0 (1 if it failed); a later
 * second signal exits at once without waiting for `waitingFor`. The log is
 * flushed first: lines still queued at process.exit would come out of order
 * or not at all.
 */
export function onStopSignals(logger: Logger, waitingFor: string, stop: (signal: NodeJS.Signals) => Promise<void>): void {
  const exit = (code: number) => logger.flush(() => process.exit(code));
  let stoppingSince: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stoppingSince === undefined) {
      stoppingSince = Date.now();
      stop(signal).then(
        () => exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          exit(1);
        },
      );
    } else if (Date.now() - stoppingSince >= REPEAT_SIGNAL_MS) {
      logger.warn({ signal }, `second signal: exiting without waiting for ${waitingFor}`);
      exit(1);
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
