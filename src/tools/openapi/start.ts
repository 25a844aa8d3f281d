import type { Logger } from 'pino';
import type { OpenApiSourceConfig } from '../../config/schema.js';
import type { Tool } from '../tool.js';
import { createLoadSlots } from './load.js';
import { loadOpenApiSource, type OpenApiDeps } from './source.js';

/** Where a source's tools are served (the registry): what it refuses or cannot compile is reported. */
interface ToolSources {
  setSource(source: string, tools: readonly Tool[], compiled: boolean): { refused: readonly string[]; invalid: readonly string[] };
}

/** The loads of a gateway's OpenAPI sources, under way in the background. */
export interface OpenApiLoads {
  /** Settles once every source is served or refused. */
  settled: Promise<void>;
  /** Stops the loads under way (their workers end) and waits for them. */
  close(): Promise<void>;
}

const LEFT_OUT = 'OpenAPI operation left out; the rest of its document is served';
// Documents read at once, each in a worker of at most its spec_memory_mb; fetches are not limited.
const PARALLEL_READS = 2;

/**
 * Load every source in the background, each document in a bounded worker of its own (load.ts): the gateway serves its other tools
 * meanwhile, and a source's tools join `registry` when its document has been read. The JSON log has one line per operation left out (with
 * why) or served with its schema changed (with the notes), and one per source refused (with the bound it went over, if that is why).
 */
export function startOpenApiSources(sources: readonly OpenApiSourceConfig[], registry: ToolSources, deps: OpenApiDeps & { logger: Logger }): OpenApiLoads {
  const stop = new AbortController();
  const slots = createLoadSlots(PARALLEL_READS);
  const loads = sources.map(async (source) => {
    const log = deps.logger.child({ openapi_source: source.name });
    const outcome = await loadOpenApiSource(source, { ...deps, signal: stop.signal, slots }).catch((err: unknown) => ({
      tools: [],
      skipped: [],
      verdicts: [],
      problems: [`openapi_sources.${source.name}: could not be loaded: ${(err as Error).message}`],
      bound: undefined,
    }));
    // Stopped with the gateway: nothing to serve, nothing to report.
    if (stop.signal.aborted) return;
    for (const verdict of outcome.verdicts) {
      const where = { operation: verdict.operationId ?? null, method: verdict.method.toUpperCase(), path: verdict.path };
      const notes = verdict.notes.length > 0 ? { notes: verdict.notes } : {};
      if (verdict.reason !== undefined) {
        log.warn({ ...where, reason: verdict.reason, problem: `openapi_sources.${source.name}: ${verdict.label}: ${verdict.reason}`, ...notes }, LEFT_OUT);
      } else if (verdict.notes.length > 0) log.info({ ...where, ...notes }, 'OpenAPI operation served with its schema changed');
    }
    if (outcome.problems.length > 0) {
      for (const problem of outcome.problems) {
        log.error({ problem, ...(outcome.bound && { bound: outcome.bound }) }, 'OpenAPI source refused: none of its operations is served');
      }
      return;
    }
    // Every schema was compiled in the load's worker (plan.ts): the registry compiles each on its tool's first call.
    const report = registry.setSource(`openapi_sources.${source.name}`, outcome.tools, true);
    for (const problem of report.refused) log.error({ problem }, 'OpenAPI tool left out: its name is refused');
    for (const problem of report.invalid) log.warn({ problem }, 'OpenAPI tool left out: its schema does not compile');
    log.info({ tools: outcome.tools.length - report.refused.length - report.invalid.length, left_out: outcome.skipped.length }, 'OpenAPI source loaded: its tools are served');
  });
  const settled = Promise.all(loads).then(() => undefined);
  return {
    settled,
    async close() {
      stop.abort();
      await settled;
    },
  };
}
