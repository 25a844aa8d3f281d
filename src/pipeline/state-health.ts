import type { FastifyBaseLogger } from 'fastify';
import { StateUnavailableError } from '../state/state-store.js';
import type { PipelineDeps } from './types.js';

/**
 * One request to the state store, told to the state health (deps.health): an
 * answer means the store is up; StateUnavailableError means it is down, and
 * the caller's `fallback` answers instead (what a call may still do without
 * the store). Any other error is thrown on. `log` is the request's logger
 * where there is one, so an outage line carries the request that found it.
 */
export async function withState<T>(
  deps: Pick<PipelineDeps, 'health'>,
  log: FastifyBaseLogger | undefined,
  request: () => Promise<T>,
  fallback: (err: StateUnavailableError) => T,
): Promise<T> {
  let answer: T;
  try {
    answer = await request();
  } catch (err) {
    if (!(err instanceof StateUnavailableError)) throw err;
    deps.health.failed(err, log);
    return fallback(err);
  }
  deps.health.ok(log);
  return answer;
}
