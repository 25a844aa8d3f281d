import { isRecord, own } from '../json.js';

/**
 * A model name fit for a log line: what providers name their models
 * (`gpt-4o-2024-08-06`, `claude-sonnet-4-5`, `gemini-2.5-flash`,
 * `meta-llama/Llama-3.1-8B`, `anthropic.claude-v2:1`, `llama3.1:8b`), at most
 * 128 characters, no spaces or control characters.
 */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;
export const MODEL_NAME_MAX = 128;

export function isModelName(value: unknown): value is string {
  return typeof value === 'string' && MODEL_NAME.test(value);
}

/**
 * The model a body names when it is a whole provider response: an OpenAI
 * chat completion (`choices`) or Responses object (`output`), an Anthropic
 * message (`"type":"message"`) — each in `model` —, or a Gemini response
 * (`candidates`), in `modelVersion`. Other bodies (a bare list, an
 * assistant message, the `tool_calls` envelope) name none. A value that is
 * not a plausible model name counts as none: the field is the provider's,
 * and a batch is not refused over what only its log line would show.
 */
export function modelOfBody(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  let name: unknown;
  if (own(body, 'candidates') !== undefined) name = own(body, 'modelVersion');
  else if (own(body, 'choices') !== undefined || own(body, 'output') !== undefined || own(body, 'type') === 'message')
    name = own(body, 'model');
  return isModelName(name) ? name : undefined;
}
