import { pino, type Logger, type LoggerOptions } from 'pino';
import { coalescingDestination } from './log-destination.js';
import { counted } from '../shared/count.js';

const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|session[-_]?key|bearer/i;
const MAX_DEPTH = 16;
const MAX_STRING = 256;
const MAX_ITEMS = 50;
export const REDACTED = '[REDACTED]';

/** Secret-looking keys replaced at any depth; long strings, arrays, objects and deep nesting cut. */
export function redactForLog(value: unknown): unknown {
  return redacted(value, MAX_STRING, 0);
}

/** As {@link redactForLog}, strings kept up to `maxString`: what a person reads before approving a call. */
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

/** Headers that carry keys are never written; each line goes through `scrub` (the guardrails' pass) last. */
export function loggerOptions(level: string, scrub?: (line: string) => string): LoggerOptions {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'headers.authorization'],
      censor: REDACTED,
    },
    base: { service: 'toolgate' },
    ...(scrub && { hooks: { streamWrite: scrub } }),
  };
}

export function createLogger(level: string, scrub?: (line: string) => string): Logger {
  return pino(loggerOptions(level, scrub), coalescingDestination());
}
