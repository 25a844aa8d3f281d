import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../observability/metrics.js';
import { putOrCount } from '../spill/counted.js';
import { isSpillFailure, type SpillOutcome } from '../spill/spill-store.js';
import type { PipelineDeps } from './types.js';

/**
 * Tracks whether the spill store takes outputs, so an outage is logged once
 * when it starts and once when it ends rather than on every call; every
 * failed spill is counted.
 */
export class SpillHealth {
  private failing = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly metrics: Metrics,
  ) {}

  failed(err: unknown, log: FastifyBaseLogger = this.log): void {
    this.metrics.spillFailures.inc();
    if (this.failing) return;
    this.failing = true;
    log.warn({ err }, 'spill store failing: oversized outputs are cut to their budget with no url (spill_error) until it answers again');
  }

  ok(log: FastifyBaseLogger = this.log): void {
    if (!this.failing) return;
    this.failing = false;
    log.info('spill store answering again');
  }
}

/** A tenant's spill for the budgets and the tools: the store's failures become outcomes (see putOrCount), told to the health. */
export function spillFor(deps: Pick<PipelineDeps, 'spill' | 'spillHealth' | 'metrics'>, tenant: string, log: FastifyBaseLogger) {
  return async (content: string | Buffer | AsyncIterable<Buffer>): Promise<SpillOutcome> => {
    const outcome = await putOrCount(deps.spill, tenant, content, (err) => deps.spillHealth.failed(err, log));
    if (!isSpillFailure(outcome)) {
      deps.spillHealth.ok(log);
      deps.metrics.spilledBytes.inc(outcome.bytes);
    }
    return outcome;
  };
}
