import { renderMessages, type CallFormat, type ProviderMessage } from './providers/index.js';
import { payloadJson, visiblePayload, type CallResult, type VisiblePayload } from './result.js';

/** The body of a finished batch: what POST /execute answers, and what a completed async execution holds. */
interface ExecuteResponse {
  results: CallResult[];
  messages: ProviderMessage[];
}

/**
 * The response's `messages`, rendered from its results in the request's format and bound to the request's call ids (`calls[i].idGenerated`:
 * the gateway made call i's id up); `serialized` and `payloads`, where the batch just ran, what the model sees of each result, already
 * worked out.
 */
export function executeResponse(
  format: CallFormat,
  calls: readonly { idGenerated: boolean }[],
  results: CallResult[],
  serialized?: readonly string[],
  payloads?: readonly VisiblePayload[],
): ExecuteResponse {
  const messages = renderMessages(
    format,
    results.map((r, i) => {
      const payload = payloads?.[i] ?? visiblePayload(r);
      return {
        tool_call_id: r.tool_call_id,
        name: r.name,
        content: serialized?.[i] ?? payloadJson(r),
        payload: payload as unknown as Record<string, unknown>,
        is_error: r.status === 'error',
        id_generated: calls[i]!.idGenerated,
        blocks: r.content,
      };
    }),
  );
  return { results, messages };
}
