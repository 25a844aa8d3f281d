import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors.js';
import { isRecord, own, type JsonObject } from '../json.js';
import { locateCalls } from './locate.js';
import { modelOfBody } from './model.js';
import { badRequest, quote } from './report.js';
import { classify, formatOf, normalize } from './shapes.js';
import { checkStopReasons, rejectIncompleteItems } from './stop-reasons.js';
import { CALL_FORMATS, type CallFormat, type CallShape } from '../providers/index.js';
import type { NormalizedCall } from './types.js';

export interface ParsedEnvelope {
  calls: NormalizedCall[];
  format: CallFormat;
  sessionId?: string;
  /** The first finish/stop reason the body carried (never an incomplete one: those throw). */
  finishReason?: string;
  mode?: 'sync' | 'async';
  callbackUrl?: string;
  timeoutMs?: number;
  /** The model a whole provider response names (see modelOfBody). */
  model?: string;
}

interface ParseEnvelopeOptions {
  maxCalls: number;
  /** Test hook; defaults to `call_` and 32 random hex characters. */
  generateId?: () => string;
}

/** A session id's length at most, in the body's `session_id` or an `x-session-id` header. */
export const SESSION_ID_MAX = 256;

function defaultId(): string {
  return `call_${randomBytes(16).toString('hex')}`;
}

/**
 * Parse a POST /execute body, in any of the shapes docs/api.md lists, into its calls and envelope fields, never modifying it. Throws
 * BAD_REQUEST, INCOMPLETE_TOOL_CALLS (nothing may run), TOO_MANY_CALLS or DUPLICATE_CALL_ID.
 */
export function parseEnvelope(body: unknown, options: ParseEnvelopeOptions): ParsedEnvelope {
  const finishReason = checkStopReasons(body);
  const { format, ...fields } = readEnvelopeFields(isRecord(body) ? body : {});
  if (finishReason !== undefined) fields.finishReason = finishReason;
  const list = locateCalls(body);
  rejectIncompleteItems(list);

  const found: { item: JsonObject; shape: CallShape; path: string }[] = [];
  list.items.forEach((item, position) => {
    const path = `${list.path}[${position}]`;
    if (!isRecord(item)) throw badRequest(`${path} must be an object.`, { path });
    const shape = classify(item, list.kind, path);
    if (shape) found.push({ item, shape, path });
  });
  if (found.length > options.maxCalls) {
    throw new GatewayError('TOO_MANY_CALLS', {
      message: `The batch has ${found.length} calls; at most ${options.maxCalls} ${options.maxCalls === 1 ? 'is' : 'are'} allowed.`,
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
  const inferred = calls[0] ? formatOf(calls[0].shape) : list.hint;
  const model = modelOfBody(body);
  if (model !== undefined) fields.model = model;
  return { calls, format: format ?? inferred ?? 'openai', ...fields };
}

type EnvelopeFields = Omit<ParsedEnvelope, 'calls' | 'format'> & { format?: CallFormat };

/** The envelope's own fields; `format` is left unset when the body does not name one. */
function readEnvelopeFields(envelope: JsonObject): EnvelopeFields {
  const parsed: EnvelopeFields = {};
  const format = optional(
    envelope,
    'format',
    (v): v is CallFormat => CALL_FORMATS.includes(v as CallFormat),
    `one of ${CALL_FORMATS.map((f) => `"${f}"`).join(', ')}`,
  );
  if (format !== undefined) parsed.format = format;
  const sessionId = optional(envelope, 'session_id', isSessionId, `a non-empty string of at most ${SESSION_ID_MAX} characters`);
  if (sessionId !== undefined) parsed.sessionId = sessionId;
  const mode = optional(envelope, 'mode', (v): v is 'sync' | 'async' => v === 'sync' || v === 'async', '"sync" or "async"');
  if (mode !== undefined) parsed.mode = mode;
  const callbackUrl = optional(envelope, 'callback_url', isHttpUrl, 'an absolute http(s) URL');
  if (callbackUrl !== undefined) parsed.callbackUrl = callbackUrl;
  const timeoutMs = optional(
    envelope,
    'timeout_ms',
    (v): v is number => Number.isSafeInteger(v) && (v as number) > 0,
    'a positive integer',
  );
  if (timeoutMs !== undefined) parsed.timeoutMs = timeoutMs;
  return parsed;
}

// `null` counts as absent: clients serialize unset optional fields as null.
function optional<T>(envelope: JsonObject, key: string, valid: (value: unknown) => value is T, expected: string): T | undefined {
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
