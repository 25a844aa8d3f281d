import type { FastifyBaseLogger } from 'fastify';
import { putOrCount } from '../spill/counted.js';
import { isSpillFailure, type SpillOutcome } from '../spill/spill-store.js';
import type { PipelineDeps } from './types.js';

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
