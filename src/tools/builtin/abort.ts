import { GatewayError } from '../../protocol/errors.js';

/** The call's signal fires at its deadline; stop before doing (more) work. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) {
    throw new GatewayError('TIMEOUT', { message: 'The call was cancelled at its deadline before it finished; nothing more was done.' });
  }
}
