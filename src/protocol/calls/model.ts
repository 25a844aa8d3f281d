import { isRecord, own } from '../json.js';

/** A model name fit for a log line (`gpt-4o-2024-08-06`, `meta-llama/Llama-3.1-8B`, `anthropic.claude-v2:1`): no spaces or controls. */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;
export const MODEL_NAME_MAX = 128;

export function isModelName(value: unknown): value is string {
  return typeof value === 'string' && MODEL_NAME.test(value);
}

/**
 * The model a whole provider response names (`model`; a Gemini response's `modelVersion`); other bodies name none. An implausible name
 * counts as none: a batch is not refused over what only its log line would show.
 */
export function modelOfBody(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  let name: unknown;
  if (own(body, 'candidates') !== undefined) name = own(body, 'modelVersion');
  else if (own(body, 'choices') !== undefined || own(body, 'output') !== undefined || own(body, 'type') === 'message')
    name = own(body, 'model');
  return isModelName(name) ? name : undefined;
}
