import type { FastifyBaseLogger } from 'fastify';
import type { Counter } from 'prom-client';

/** What an outage's two log lines say. */
export interface OutageLines {
  down: string;
  up: string;
}

/** Whether a store answers: an outage is logged when it starts and when it ends; every failure is counted. */
export class Outage {
  private down = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly failures: Counter,
    private readonly lines: OutageLines,
  ) {}

  /** `log` is the request's logger where there is one, so the outage line carries the request id that found it. */
  failed(err: unknown, log: FastifyBaseLogger = this.log): void {
    this.failures.inc();
    if (this.down) return;
    this.down = true;
    log.warn({ err }, this.lines.down);
  }

  ok(log: FastifyBaseLogger = this.log): void {
    if (!this.down) return;
    this.down = false;
    log.info(this.lines.up);
  }
}
