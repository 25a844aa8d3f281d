import type { FastifyBaseLogger } from 'fastify';
import { GatewayError } from '../protocol/errors.js';
import { StateUnavailableError } from '../state/state-store.js';
import type { PipelineDeps } from './types.js';

/** One request to the state store, told to deps.health; while the store is down (StateUnavailableError) `fallback` answers. */
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

/** A call that cannot be answered while the state store is down: retryable shortly. */
export function stateUnavailable(message: string): GatewayError {
  return new GatewayError('STATE_UNAVAILABLE', { message, retryAfterMs: 1_000, suggestion: 'Retry shortly.' });
}
