import { pino, type Logger, type LoggerOptions } from 'pino';
import { coalescingDestination } from './log-destination.js';
import { counted } from '../shared/count.js';

const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|session[-_]?key|bearer/i;
const MAX_DEPTH = 16;
const MAX_STRING = 256;
/** Items of an array, keys of an object: the first ones are logged, the rest counted. */
const MAX_ITEMS = 50;
export const REDACTED = '[REDACTED]';

/**
 * A copy of `value` fit for a log line: values under secret-looking keys
 * replaced at any depth, long strings cut, long arrays and objects with many
 * keys cut to their first items, deep nesting bounded (arguments come from
 * models and can be anything).
 */
export function redactForLog(value: unknown): unknown {
  return redacted(value, MAX_STRING, 0);
}

/** As {@link redactForLog}, with strings kept up to `maxString` characters: what a person reads before approving a call. */
export function redactSecrets(value: unknown, maxString: number): unknown {
  return redacted(value, maxString, 0);
}

function redacted(value: unknown, maxString: number, depth: number): unknown {
  if (typeof value === 'string') return value.length > maxString ? `${value.slice(0, maxString)}…(${value.length} chars)` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => redacted(item, maxString, depth + 1));
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (const key of keys.slice(0, MAX_ITEMS)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redacted((value as Record<string, unknown>)[key], maxString, depth + 1);
  }
  if (keys.length > MAX_ITEMS) out['…'] = `(${counted(keys.length - MAX_ITEMS, 'more key')})`;
  return out;
}

/** pino options shared by the server and the worker: JSON lines, headers that carry keys never written. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'headers.authorization'],
      censor: REDACTED,
    },
    base: { service: 'toolgate' },
  };
}

/** The process's logger: JSON lines on stdout, written once per event-loop turn (see coalescingDestination). */
export function createLogger(level: string): Logger {
  return pino(loggerOptions(level), coalescingDestination());
}
