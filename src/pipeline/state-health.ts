import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../observability/metrics.js';

/**
 * Tracks whether the state store answers, so an outage is logged once when it
 * starts and once when it ends rather than on every call.
 */
export class StateHealth {
  private down = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly metrics: Metrics,
  ) {}

  failed(err: unknown): void {
    this.metrics.stateUnavailable.inc();
    if (this.down) return;
    this.down = true;
    this.log.warn(
      { err },
      'state store unreachable: read-only calls keep running; calls that need state answer STATE_UNAVAILABLE',
    );
  }

  ok(): void {
    if (!this.down) return;
    this.down = false;
    this.log.info('state store reachable again');
  }
}
