import { randomBytes } from 'node:crypto';
import { GatewayError } from './errors.js';

/** The provider dialect the response's `messages` are rendered in. */
export type CallFormat = 'openai' | 'responses' | 'anthropic' | 'gemini';

/** The wire shape one call arrived in (contract 3.1). */
export type CallShape = 'openai' | 'flat' | 'anthropic' | 'gemini' | 'responses';

/** One tool call of a batch, whatever shape it arrived in. */
export interface NormalizedCall {
  /** Position among the batch's calls (0-based, request order). */
  index: number;
  id: string;
  /** The model sent no id; the gateway made one up (`call_<hex>`). */
  idGenerated: boolean;
  name: string;
  /**
   * raw: a string (to JSON-parse later) or an already-parsed value; `undefined`
   * when the call carried no arguments field (Gemini leaves `args` out of a
   * call without arguments). The parse gate decides what each means.
   */
  rawArguments: unknown;
  shape: CallShape;
}

/** A POST /execute body reduced to its calls and envelope fields. */
export interface ParsedEnvelope {
  calls: NormalizedCall[];
  format: CallFormat;
  sessionId?: string;
  /** The first finish/stop reason the body carried (never an incomplete one: those throw). */
  finishReason?: string;
  mode?: 'sync' | 'async';
  callbackUrl?: string;
  timeoutMs?: number;
}

export interface ParseEnvelopeOptions {
  maxCalls: number;
  /** Test hook; defaults to `call_` and 32 random hex characters. */
  generateId?: () => string;
}

type Json = Record<string, unknown>;

/**
 * `calls`: a `tool_calls` list, every item must be a call. `blocks`: an
 * Anthropic content list, a Responses output list or a bare array, where text,
 * thinking and reasoning items sit between the calls and are skipped. `parts`:
 * a Gemini part list, where only parts with `functionCall` are calls.
 */
type ListKind = 'calls' | 'blocks' | 'parts';

interface CallList {
  items: readonly unknown[];
  /** Where the list sits in the body, for error messages. */
  path: string;
  kind: ListKind;
  /** The format the body's own shape points to, used when there is no call to infer it from. */
  hint?: CallFormat;
}

const FORMATS: readonly CallFormat[] = ['openai', 'responses', 'anthropic', 'gemini'];
const SESSION_ID_MAX = 256;
// Call ids end up in state-store keys and logs; real providers use ~30 characters.
const CALL_ID_MAX = 256;
// Compared lower-cased: OpenAI `length`, Anthropic `max_tokens` and
// `model_context_window_exceeded`, Gemini `MAX_TOKENS`.
const INCOMPLETE_REASONS = new Set(['length', 'max_tokens', 'model_context_window_exceeded']);
const SHAPE_FORMAT: Record<CallShape, CallFormat> = {
  openai: 'openai',
  flat: 'openai',
  responses: 'responses',
  anthropic: 'anthropic',
  gemini: 'gemini',
};

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Own properties only: a `__proto__` key in the JSON is plain data, and nothing inherited counts.
function own(object: Json, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function badRequest(message: string, details?: Json): GatewayError {
  return new GatewayError('BAD_REQUEST', { message, details });
}

// Echoes of client strings in messages stay short.
function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function defaultId(): string {
  return `call_${randomBytes(16).toString('hex')}`;
}

/**
 * Parse a POST /execute body (contract 3.1) into its calls and envelope fields.
 *
 * Bodies: a bare array of calls or Responses output items; `{"tool_calls":[...], ...envelope}`;
 * an OpenAI assistant message, or a chat completion / choice holding one; an
 * Anthropic assistant message or response object (`tool_use` blocks); a
 * Responses object `{"output":[...]}`; a Gemini content `{"role":"model","parts":[...]}`,
 * a candidate `{"content":{...},"finishReason"}` or a response `{"candidates":[one]}`.
 * Calls: OpenAI, flat, Anthropic `tool_use`, Gemini `functionCall`, Responses `function_call`.
 *
 * Throws GatewayError: BAD_REQUEST (malformed envelope), INCOMPLETE_TOOL_CALLS
 * (the model stopped on its token limit; nothing may run), TOO_MANY_CALLS,
 * DUPLICATE_CALL_ID. The input is never modified.
 */
export function parseEnvelope(body: unknown, options: ParseEnvelopeOptions): ParsedEnvelope {
  const finishReason = checkStopReasons(body);
  const { format, ...fields } = readEnvelopeFields(isRecord(body) ? body : {});
  if (finishReason !== undefined) fields.finishReason = finishReason;
  const list = locateCalls(body);
  rejectIncompleteItems(list);

  const found: { item: Json; shape: CallShape; path: string }[] = [];
  list.items.forEach((item, position) => {
    const path = `${list.path}[${position}]`;
    if (!isRecord(item)) throw badRequest(`${path} must be an object.`, { path });
    const shape = classify(item, list.kind, path);
    if (shape) found.push({ item, shape, path });
  });
  if (found.length > options.maxCalls) {
    throw new GatewayError('TOO_MANY_CALLS', {
      message: `The batch has ${found.length} calls; at most ${options.maxCalls} are allowed.`,
      details: { max: options.maxCalls, got: found.length },
    });
  }

  const generateId = options.generateId ?? defaultId;
  const seen = new Set<string>();
  const calls = found.map(({ item, shape, path }, index) => {
    const call = normalize(item, shape, path, index, generateId);
    if (seen.has(call.id)) {
      throw new GatewayError('DUPLICATE_CALL_ID', {
        message: `Call id ${quote(call.id)} appears more than once in the batch.`,
        details: { id: call.id },
      });
    }
    seen.add(call.id);
    return call;
  });
  const inferred = calls[0] ? SHAPE_FORMAT[calls[0].shape] : list.hint;
  return { calls, format: format ?? inferred ?? 'openai', ...fields };
}

type EnvelopeFields = Omit<ParsedEnvelope, 'calls' | 'format'> & { format?: CallFormat };

/** The envelope's own fields; `format` is left unset when the body does not name one. */
function readEnvelopeFields(envelope: Json): EnvelopeFields {
  const parsed: EnvelopeFields = {};
  const format = optional(
    envelope,
    'format',
    (v): v is CallFormat => FORMATS.includes(v as CallFormat),
    `one of ${FORMATS.map((f) => `"${f}"`).join(', ')}`,
  );
  if (format !== undefined) parsed.format = format;
  const sessionId = optional(envelope, 'session_id', isSessionId, `a non-empty string of at most ${SESSION_ID_MAX} characters`);
  if (sessionId !== undefined) parsed.sessionId = sessionId;
  const mode = optional(envelope, 'mode', (v): v is 'sync' | 'async' => v === 'sync' || v === 'async', '"sync" or "async"');
  if (mode !== undefined) parsed.mode = mode;
  const callbackUrl = optional(envelope, 'callback_url', isHttpUrl, 'an absolute http(s) URL');
  if (callbackUrl !== undefined) parsed.callbackUrl = callbackUrl;
  const timeoutMs = optional(envelope, 'timeout_ms', (v): v is number => Number.isSafeInteger(v) && (v as number) > 0, 'a positive integer');
  if (timeoutMs !== undefined) parsed.timeoutMs = timeoutMs;
  return parsed;
}

// `null` counts as absent: clients serialize unset optional fields as null.
function optional<T>(envelope: Json, key: string, valid: (value: unknown) => value is T, expected: string): T | undefined {
  const value = own(envelope, key);
  if (value === undefined || value === null) return undefined;
  if (!valid(value)) throw badRequest(`${key} must be ${expected}.`, { field: key });
  return value;
}

function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= SESSION_ID_MAX;
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The wrappers a client may post as is — a chat completion's single choice,
 * a Gemini response's single candidate, a candidate's content — each visited
 * once, in that order.
 */
function* levels(body: unknown): Generator<{ node: Json; path: string }> {
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

/**
 * Every finish/stop reason in the body. A token-limit stop means the last
 * call's arguments may be cut off, so nothing may run (contract 3.1).
 */
function checkStopReasons(body: unknown): string | undefined {
  let first: string | undefined;
  for (const { node, path } of levels(body)) {
    for (const key of ['finish_reason', 'stop_reason', 'finishReason']) {
      const value = own(node, key);
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') throw badRequest(`${join(path, key)} must be a string.`, { path: join(path, key) });
      if (INCOMPLETE_REASONS.has(value.toLowerCase())) throw incomplete(join(path, key), value);
      first ??= value;
    }
    // A Responses object stopped early (max_output_tokens, content_filter) may end mid-call.
    if (own(node, 'status') === 'incomplete' && own(node, 'output') !== undefined) {
      const details = own(node, 'incomplete_details');
      const reason = isRecord(details) && typeof own(details, 'reason') === 'string' ? (own(details, 'reason') as string) : 'incomplete';
      throw incomplete(join(path, 'status'), reason);
    }
  }
  return first;
}

function incomplete(path: string, reason: string): GatewayError {
  return new GatewayError('INCOMPLETE_TOOL_CALLS', {
    message: `The model stopped early (${path}: ${quote(reason)}); its tool calls may be cut off, so none was run.`,
    details: { path, reason },
  });
}

// A Responses `function_call` item still being written when the output stopped.
function rejectIncompleteItems(list: CallList): void {
  list.items.forEach((item, position) => {
    if (isRecord(item) && own(item, 'type') === 'function_call' && own(item, 'status') === 'incomplete') {
      throw incomplete(`${list.path}[${position}].status`, 'incomplete');
    }
  });
}

function locateCalls(body: unknown): CallList {
  if (Array.isArray(body)) return { items: body, path: '', kind: 'blocks' };
  if (!isRecord(body)) {
    throw badRequest('The body must be a JSON array of tool calls or an object holding them (tool_calls, an assistant message, output, parts).');
  }
  let last: { node: Json; path: string } = { node: body, path: '' };
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
  for (const [key, kind, hint] of [['output', 'blocks', 'responses'], ['parts', 'parts', 'gemini']] as const) {
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

/** Which shape an item is, or undefined for a non-call item to skip. */
function classify(item: Json, kind: ListKind, path: string): CallShape | undefined {
  if (Object.hasOwn(item, 'functionCall')) return 'gemini';
  if (kind === 'parts') return undefined;
  const type = own(item, 'type');
  if (type === undefined || type === null) return own(item, 'function') === undefined ? 'flat' : 'openai';
  if (typeof type !== 'string') throw badRequest(`${path}.type must be a string.`, { path: `${path}.type` });
  if (type === 'function') return 'openai';
  if (type === 'tool_use') return 'anthropic';
  if (type === 'function_call') return 'responses';
  if (kind === 'calls') {
    throw badRequest(`${path}.type ${quote(type)} is not a tool call type (function, tool_use, function_call).`, { path: `${path}.type` });
  }
  return undefined;
}

function normalize(item: Json, shape: CallShape, path: string, index: number, generateId: () => string): NormalizedCall {
  let holder = item;
  let holderPath = path;
  let idKey = 'id';
  let argsKey = 'arguments';
  if (shape === 'openai' || shape === 'gemini') {
    const key = shape === 'openai' ? 'function' : 'functionCall';
    const inner = own(item, key);
    holderPath = `${path}.${key}`;
    if (!isRecord(inner)) throw badRequest(`${holderPath} must be an object.`, { index, path: holderPath });
    holder = inner;
  }
  if (shape === 'anthropic') argsKey = 'input';
  if (shape === 'gemini') argsKey = 'args';
  if (shape === 'responses') idKey = 'call_id';

  const name = own(holder, 'name');
  if (typeof name !== 'string' || name === '') {
    throw badRequest(`${holderPath}.name must be a non-empty string.`, { index, path: `${holderPath}.name` });
  }
  // OpenAI calls carry their id beside `function`; Gemini's sits inside `functionCall`.
  const idHolder = shape === 'openai' ? item : holder;
  const idPath = `${shape === 'openai' ? path : holderPath}.${idKey}`;
  const rawId = own(idHolder, idKey);
  let id: string;
  let idGenerated = false;
  if (rawId === undefined || rawId === null || rawId === '') {
    id = generateId();
    idGenerated = true;
  } else if (typeof rawId !== 'string' || rawId.length > CALL_ID_MAX) {
    throw badRequest(`${idPath} must be a string of at most ${CALL_ID_MAX} characters.`, { index, path: idPath });
  } else {
    id = rawId;
  }

  return { index, id, idGenerated, name, rawArguments: own(holder, argsKey), shape };
}
