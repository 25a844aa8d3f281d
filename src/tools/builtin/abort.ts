import { GatewayError } from '../../protocol/errors.js';

/** What a check between steps reads: the context (`aborted`, which makes no AbortSignal) or a signal. */
export interface Abortable {
  readonly aborted: boolean;
}

/** The call's signal fires at its deadline; stop before doing (more) work. */
export function throwIfAborted(call: Abortable): void {
  if (call.aborted) {
    throw new GatewayError('TIMEOUT', { message: 'The call was cancelled at its deadline before it finished; nothing more was done.' });
  }
}
