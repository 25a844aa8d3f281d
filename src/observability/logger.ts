import type { LoggerOptions } from 'pino';

const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|session[-_]?key|bearer/i;
const MAX_DEPTH = 16;
const MAX_STRING = 256;
export const REDACTED = '[REDACTED]';

/**
 * A copy of `value` fit for a log line: values under secret-looking keys
 * replaced at any depth, long strings cut, deep nesting bounded (arguments come
 * from models and can be anything).
 */
export function redactForLog(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…(${value.length} chars)` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => redactForLog(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redactForLog(child, depth + 1);
  }
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
