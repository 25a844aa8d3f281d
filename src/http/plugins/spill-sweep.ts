import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { SpillStore } from '../../spill/spill-store.js';
import type { Clock } from '../../shared/clock.js';

const SPILL_SWEEP_MAX_MS = 10 * 60_000;

/** Expired spilled outputs are deleted every quarter of their TTL (1 s to 10 min), for as long as the app is open. */
export function installSpillSweep(app: FastifyInstance, spill: SpillStore, clock: Clock, logger: FastifyBaseLogger, ttlMs: number): void {
  const sweepEvery = Math.min(Math.max(1_000, Math.floor(ttlMs / 4)), SPILL_SWEEP_MAX_MS);
  const sweeper = setInterval(() => {
    spill.sweep(clock.now()).catch((err: unknown) => logger.warn({ err }, 'spill sweep failed'));
  }, sweepEvery);
  sweeper.unref();
  app.addHook('onClose', async () => clearInterval(sweeper));
}
