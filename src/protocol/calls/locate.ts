import { isRecord, own, type JsonObject } from '../json.js';
import { badRequest, join } from './report.js';
import type { CallFormat } from '../providers/index.js';

/**
 * `calls`: every item must be a call. `blocks` (Anthropic content, Responses output, a bare array): other items between the calls are
 * skipped. `parts` (Gemini): only parts with `functionCall` are calls.
 */
export type ListKind = 'calls' | 'blocks' | 'parts';

export interface CallList {
  items: readonly unknown[];
  /** Where the list sits in the body, for error messages. */
  path: string;
  kind: ListKind;
  /** The format the body's own shape points to, used when there is no call to infer it from. */
  hint?: CallFormat;
}

/**
 * The wrappers a client may post as is — a chat completion's single choice, a Gemini response's single candidate, a candidate's content —
 * each visited once, in that order.
 */
export function* levels(body: unknown): Generator<{ node: JsonObject; path: string }> {
  if (!isRecord(body)) return;
  let node = body;
  let path = '';
  yield { node, path };
  for (const key of ['choices', 'candidates']) {
    const wrapped = own(node, key);
    if (wrapped === undefined) continue;
    if (!Array.isArray(wrapped) || wrapped.length !== 1 || !isRecord(wrapped[0])) {
      throw badRequest(`${join(path, key)} must hold exactly one object; post the one whose calls should run.`, {
        path: join(path, key),
      });
    }
    node = wrapped[0];
    path = `${join(path, key)}[0]`;
    yield { node, path };
  }
  for (const key of ['message', 'content']) {
    const inner = own(node, key);
    // A node that holds its calls itself is not a wrapper, whatever else it carries.
    if (!isRecord(inner) || ['tool_calls', 'output', 'parts'].some((k) => Object.hasOwn(node, k))) continue;
    node = inner;
    path = join(path, key);
    yield { node, path };
  }
}

export function locateCalls(body: unknown): CallList {
  if (Array.isArray(body)) return { items: body, path: '', kind: 'blocks' };
  if (!isRecord(body)) {
    throw badRequest(
      'The body must be a JSON array of tool calls or an object holding them (tool_calls, an assistant message, output, parts).',
    );
  }
  let last: { node: JsonObject; path: string } = { node: body, path: '' };
  for (const level of levels(body)) last = level;
  const { node, path } = last;

  const role = own(node, 'role');
  if (role !== undefined && role !== 'assistant' && role !== 'model') {
    throw badRequest(`${join(path, 'role')} must be "assistant" (or Gemini's "model"): only the model's turn carries tool calls.`, {
      path: join(path, 'role'),
    });
  }
  const toolCalls = own(node, 'tool_calls');
  if (toolCalls !== undefined) {
    // An assistant message that answered in text has `tool_calls: null`.
    if (toolCalls === null) return { items: [], path: join(path, 'tool_calls'), kind: 'calls' };
    return { items: list(toolCalls, join(path, 'tool_calls')), path: join(path, 'tool_calls'), kind: 'calls' };
  }
  for (const [key, kind, hint] of [
    ['output', 'blocks', 'responses'],
    ['parts', 'parts', 'gemini'],
  ] as const) {
    const value = own(node, key);
    if (value !== undefined) return { items: list(value, join(path, key)), path: join(path, key), kind, hint };
  }
  const content = own(node, 'content');
  if (Array.isArray(content) && (role === 'assistant' || own(node, 'type') === 'message')) {
    return { items: content, path: join(path, 'content'), kind: 'blocks', hint: 'anthropic' };
  }
  // An assistant message that answered in text only: no calls.
  if (role === 'assistant') return { items: [], path, kind: 'calls' };
  throw badRequest(
    'The body holds no tool calls: expected an array, tool_calls, an assistant message, a Responses output or Gemini parts.',
  );
}

function list(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) throw badRequest(`${path} must be an array.`, { path });
  return value;
}
