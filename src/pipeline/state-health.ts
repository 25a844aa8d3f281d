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

  /** `log` is the request's logger where there is one, so the outage line carries the request id that found it. */
  failed(err: unknown, log: FastifyBaseLogger = this.log): void {
    this.metrics.stateUnavailable.inc();
    if (this.down) return;
    this.down = true;
    log.warn(
      { err },
      'state store unreachable: read-only calls keep running; calls that need state answer STATE_UNAVAILABLE',
    );
  }

  ok(log: FastifyBaseLogger = this.log): void {
    if (!this.down) return;
    this.down = false;
    log.info('state store reachable again');
  }
}
