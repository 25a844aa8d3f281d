import type { Logger } from 'pino';

/** Ctrl-C under `npm start` arrives twice at once (the process group, and npm's copy): a repeat this soon is the same stop. */
const REPEAT_SIGNAL_MS = 1_000;

/** SIGTERM/SIGINT run `stop` once, then exit 0 (1 if it failed); a later second signal exits at once. The log is flushed first. */
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

interface Closable {
  close(): Promise<unknown>;
}

/** What a server and a worker close after their own parts (requests, workers, the queue). */
interface Services {
  outbox: Closable | undefined;
  audit: Closable | undefined;
  metricsApp: Closable | undefined;
  mcp: Closable;
  /** The OpenAPI documents still loading. */
  openapi: Closable;
  state: Closable;
  dispatchers: { guarded: Closable; open: Closable };
  tracing: { shutdown(): Promise<void> } | undefined;
}

/** In this order: each part is closed after every part that may still use it. */
export async function closeServices(services: Services): Promise<void> {
  // Queued deliveries stay in Redis for another replica.
  await services.outbox?.close();
  // After every batch: their last records are written before the process exits.
  await services.audit?.close();
  await services.metricsApp?.close();
  await services.mcp.close();
  await services.openapi.close();
  await services.state.close();
  await Promise.all([services.dispatchers.guarded.close(), services.dispatchers.open.close()]);
  // Last: the spans of everything above are exported before the process exits.
  await services.tracing?.shutdown();
}
