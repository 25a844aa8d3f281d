import { GatewayError } from '../../protocol/errors.js';

/** The call's signal fires at its deadline; stop before doing (more) work. Takes the signal or the call's context (`ToolContext.aborted`). */
export function throwIfAborted(call: { readonly aborted: boolean }): void {
  if (call.aborted) {
    throw new GatewayError('TIMEOUT', { message: 'The call was cancelled at its deadline before it finished; nothing more was done.' });
  }
}
